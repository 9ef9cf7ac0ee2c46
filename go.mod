module github.com/tolk-project/tolk

go 1.26.8
