package api

// PoisonPageBodies replaces the body of every list page pageBodies
// keeps with body and returns how many it keeps, so that a test can
// tell a page sent from there from one rendered anew.
func PoisonPageBodies(s *Server, body string) int {
	s.pageBodies.mu.Lock()
	defer s.pageBodies.mu.Unlock()
	for k, e := range s.pageBodies.m {
		e.body = []byte(body)
		s.pageBodies.m[k] = e
	}
	return len(s.pageBodies.m)
}
