package engine

// AuthorityOf is authorityOf for the external tests.
var AuthorityOf = authorityOf
