package domutils

import (
	"github.com/JohannesKaufmann/dom"
	"golang.org/x/net/html"
)

func RemoveRedundant(doc *html.Node, matchFn func(*html.Node, *html.Node) bool) {
	// codewhale: the release listed every node (dom.AllNodes, a slice the
	// size of the document, three times a conversion) and then skipped those
	// with !matchFn(node, node). That test looks only at the node's name,
	// which unwrapping never changes, so listing only the nodes that pass it,
	// in the same document order, visits the same nodes with the same
	// ancestors.
	var candidates []*html.Node
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		if matchFn(n, n) {
			candidates = append(candidates, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(doc)
	for _, node := range candidates {
		if hasSameTypeAncestor(node, matchFn) {
			dom.UnwrapNode(node)
		}
	}

}

func hasSameTypeAncestor(n *html.Node, matchFn func(*html.Node, *html.Node) bool) bool {
	if !matchFn(n, n) {
		return false
	}

	for p := n.Parent; p != nil; p = p.Parent {
		if matchFn(n, p) {
			return true
		}
	}

	return false
}
