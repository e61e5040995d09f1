/* A wall of the build (docs/architecture.md, "Walls"): this folder stands
 * first on the include path of every target that may not use libuv, so that
 * an include of <uv.h> there stops the build here. Only aw_net, aw_contest and aw_web (the libraries that own loops) may. */
#error "<uv.h>: only aw_net, aw_contest and aw_web (the libraries that own loops) may use libuv (docs/architecture.md, Walls); link that library's API instead"
