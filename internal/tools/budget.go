package tools

import "github.com/codewhale/codewhale/internal/tools/budget"

// Sized returns a tool's result with its content sized to tc's budget
// (budget.Own): JSON stays valid with a receipt of what was cut, text keeps a
// head and a tail; either way the receipt ends with how, what the model can
// call to get the rest. Errors pass through (their text is short).
func Sized(res Result, err error, tc *Context, how string) (Result, error) {
	if err != nil {
		return res, err
	}
	res.Content = budget.Own(res.Content, tc.ResultBudget(), how)
	return res, nil
}
