package index

import "time"

// User is a person or bot who acts on translations.
type User struct {
	ID       int64
	Username string
	FullName string
	Email    string
	IsActive bool
	IsBot    bool
	Joined   time.Time
}
