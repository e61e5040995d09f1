/* A wall of the build (docs/architecture.md, "Walls"): this folder stands
 * first on the include path of every target that may not use lws, so that
 * an include of <libwebsockets.h> there stops the build here. Only aw_web may. */
#error "<libwebsockets.h>: only aw_web may use lws (docs/architecture.md, Walls); link that library's API instead"
