package converter

type RenderStatus int

const (
	RenderTryNext RenderStatus = iota
	RenderSuccess
)
