#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_SIZE 4096 /* bytes per read */

typedef struct {
	char *data;
	size_t len, cap;
} buffer_t;

static int grow(buffer_t *b, size_t need)
{
	if (b->len + need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap * 2 : BUF_SIZE;
	char *p = realloc(b->data, cap);
	if (p == NULL) {
		fprintf(stderr, "out of memory: %zu bytes\n", cap);
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}
