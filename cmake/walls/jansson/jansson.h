/* A wall of the build (docs/architecture.md, "Walls"): this folder stands
 * first on the include path of every target that may not use jansson, so that
 * an include of <jansson.h> there stops the build here. Only aw_wire (and the tests that read JSON) may. */
#error "<jansson.h>: only aw_wire (and the tests that read JSON) may use jansson (docs/architecture.md, Walls); link that library's API instead"
