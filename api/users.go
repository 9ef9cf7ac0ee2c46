package api

// userStore is what the user endpoints read.
type userStore interface{}

func (s *Server) userResources() []resource { return nil }
