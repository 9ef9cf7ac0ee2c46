package api

func (s *Server) rootResources() []resource { return nil }
