package api

func (s *Server) webResources() []resource { return nil }
