package api

import "net/url"

// licenseURL links a license identifier to its SPDX page; nil when the
// license is unset or not an SPDX identifier. It is an external address,
// so format=api does not apply.
func licenseURL(license string) *string {
	if license == "" || license == "proprietary" {
		return nil
	}
	return ptr("https://spdx.org/licenses/" + url.PathEscape(license) + ".html")
}

func ptr[T any](v T) *T { return &v }
