package escape

import "github.com/codewhale/codewhale/third_party/htmltomarkdown/marker"

// IMPORTANT: Only internally we assume it is only byte
var placeholderByte byte = marker.BytesMarkerEscaping[0]
