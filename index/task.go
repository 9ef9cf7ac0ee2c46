package index

import "time"

// Task is a background job as the API's tasks resource shows it: today
// the import of a component's files after it is created or its
// repository settings change. Tasks live in the process that runs them.
type Task struct {
	// ID is a random UUID, the task's address.
	ID string
	// ProjectID and ComponentID name what the task works on; access to
	// the task follows access to them.
	ProjectID   int64
	ComponentID int64
	Completed   bool
	// Progress is 0–100.
	Progress int
	// Result is what the task returned once Completed without error,
	// counts by name; nil otherwise.
	Result map[string]int
	// Err is why the task failed or was cancelled, once Completed; "" on
	// success.
	Err string
	// Log is the task's progress messages, one per line.
	Log string
	// Started is when the task was queued: the task list's order.
	Started time.Time
}
