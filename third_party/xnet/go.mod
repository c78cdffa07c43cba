module golang.org/x/net

go 1.25.0

require golang.org/x/text v0.40.0
