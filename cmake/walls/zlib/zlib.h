/* A wall of the build (docs/architecture.md, "Walls"): this folder stands
 * first on the include path of every target that may not use zlib, so that
 * an include of <zlib.h> there stops the build here. Only aw_log may. */
#error "<zlib.h>: only aw_log may use zlib (docs/architecture.md, Walls); link that library's API instead"
