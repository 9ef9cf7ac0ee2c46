package api

// projectStore is what the project endpoints read.
type projectStore interface{}

func (s *Server) projectResources() []resource { return nil }
