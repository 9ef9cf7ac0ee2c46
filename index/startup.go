package index

// Startup is what the import of the configured components, which runs
// in the background once the server listens, has done so far.
type Startup struct {
	// Done is true once every configured component was imported or
	// failed to; the service is ready then.
	Done bool
	// Importing are the components not imported yet, in the order they
	// will be.
	Importing []StartupComponent
	// Failed are the components whose import failed, with the reason.
	Failed []StartupComponent
}

// StartupComponent names a component of the start-up import by its
// project's slug and its own; Error says why its import failed ("" while
// it is still to be imported).
type StartupComponent struct {
	Project, Component string
	Error              string
}
