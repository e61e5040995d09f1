/* sb_alloc: the agent's allocator: the memory cap, and the sandbox's own
 * address region that every block of the state comes from. Part of the
 * sandbox (sandbox.h is the contract; sandbox_internal.h what the parts
 * share). */
#include "sandbox_internal.h"

#include <sys/mman.h>

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

/* Where a block lies shows to the agent: Lua hashes tables, functions and
 * coroutines used as keys by their address, so pairs order over them
 * follows the addresses. So every block comes from a region of address
 * space the sandbox reserves when it is made (SB_FOOTPRINT of its cap plus
 * SB_SLACK, without committing memory: pages are touched only as used),
 * placed at a multiple of 4 GiB, and cut by an allocator of ours that
 * depends on nothing else: the offsets of the blocks depend only on the
 * state's own sequence of allocations, and the low 32 bits of an address,
 * all that Lua's pointer hash uses, are its offset. Another seat's or the
 * host's allocations never show.
 *
 * Blocks of at most SB_SMALL_MAX bytes (most of what Lua asks for:
 * strings, tables, closures, upvalues, call records, small arrays) come
 * from chunks of up to SB_CHUNK_MAX bytes cut by a bump pointer, one free
 * list per size class (SB_GRAIN steps), nothing per block (no header). Lua
 * always gives a block's size back (osize) when it frees or resizes it, so
 * the size says which kind a block is. Larger blocks (and the chunks) have
 * a header of two words (the size of the block before it when that one is
 * free, and its own size with two flags); free ones are merged with free
 * neighbours and kept on lists by power of two (a block is taken from the
 * first fit among the first SB_BIN_SCAN of its own list, else the first
 * of a larger list, else from the region's top; a free block next to the
 * top goes back to it).
 *
 * The cap counts what Lua asks for (osize and nsize), exactly as before the
 * region: the same program reaches it at the same point. What the arena
 * keeps in its free lists is not given back before the sandbox is freed;
 * that an agent cannot make the process hold much more than its cap by
 * freeing blocks of one size and allocating blocks of another, the region
 * is SB_FOOTPRINT, twice the cap: past its end an allocation fails as at
 * the cap.
 *
 * Under AddressSanitizer each small block has a poisoned redzone behind it,
 * free blocks and headers are poisoned, so overruns and uses after free
 * inside the region are reported as they are for malloc'd memory. */

#define SB_CHUNK_MIN ((size_t)8 << 10)
#define SB_CHUNK_MAX ((size_t)64 << 10)
#define SB_FOOTPRINT(cap) ((cap) > SIZE_MAX / 4 ? SIZE_MAX / 2 : 2 * (cap))
#define SB_SLACK ((size_t)32 << 10)
#define SB_BIN_SCAN 8
#define SB_BIG_MIN 64u /* the smallest large block, header included */

#ifdef SB_ASAN
#include <sanitizer/asan_interface.h>
#define SB_REDZONE 16u
#define SB_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SB_REDZONE 0u
#define SB_POISON(p, n) ((void)(p), (void)(n))
#define SB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Whether a block of n bytes (n > 0) is an arena block, and its class. */
static inline int is_small(size_t n)
{
    return n <= SB_SMALL_MAX - SB_REDZONE;
}

static inline unsigned class_of(size_t n)
{
    return (unsigned)((n + SB_REDZONE - 1) / SB_GRAIN);
}

static inline size_t class_size(unsigned c)
{
    return ((size_t)c + 1) * SB_GRAIN;
}

/* The first word of a free small block links it to the next one. */
typedef struct sb_free {
    struct sb_free *next;
} sb_free;

/* ---- the region ---------------------------------------------------------- */

/* A large block at b: word 0 is the size of the block before it (when that
 * one is free), word 1 its own size (a multiple of 16) with the flags; a
 * free block's payload starts with its list links (next, prev). The
 * allocator's own reads and writes go through word()/set_word(), which
 * under AddressSanitizer open the word for the access only. */
#define B_USED ((size_t)1)
#define B_PREV_USED ((size_t)2)
#define B_FLAGS ((size_t)15)
#define B_HDR ((size_t)16)

static inline size_t word(const char *b, int i)
{
    size_t v;
    SB_UNPOISON(b + i * sizeof(size_t), sizeof v);
    memcpy(&v, b + i * sizeof(size_t), sizeof v);
    SB_POISON(b + i * sizeof(size_t), sizeof v);
    return v;
}

static inline void set_word(char *b, int i, size_t v)
{
    SB_UNPOISON(b + i * sizeof(size_t), sizeof v);
    memcpy(b + i * sizeof(size_t), &v, sizeof v);
    SB_POISON(b + i * sizeof(size_t), sizeof v);
}

static inline size_t bsize(const char *b)
{
    return word(b, 1) & ~B_FLAGS;
}

static inline char *link_of(const char *b, int i)
{
    return (char *)word(b, 2 + i); /* 0: next, 1: prev */
}

static inline void set_link(char *b, int i, const char *v)
{
    set_word(b, 2 + i, (size_t)v);
}

static inline unsigned bin_of(size_t size)
{
    return (unsigned)(sizeof(unsigned long) * CHAR_BIT - 1 - (unsigned)__builtin_clzl(size));
}

static void bin_insert(aw_sandbox *sb, char *b)
{
    unsigned i = bin_of(bsize(b));
    char *h = sb->free_big[i];
    set_link(b, 0, h);
    set_link(b, 1, NULL);
    if (h)
        set_link(h, 1, b);
    sb->free_big[i] = b;
}

static void bin_remove(aw_sandbox *sb, char *b)
{
    char *n = link_of(b, 0), *p = link_of(b, 1);
    if (p)
        set_link(p, 0, n);
    else
        sb->free_big[bin_of(bsize(b))] = n;
    if (n)
        set_link(n, 1, p);
}

/* Gives the pages wholly inside [from, to) back to the system when they
 * are at least SB_DISCARD bytes (they read as zeros when touched again):
 * the region keeps its high-water mark of address space, not of memory. */
#define SB_DISCARD ((size_t)1 << 20)
static void region_discard(const char *from, const char *to)
{
    static size_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
    }
    uintptr_t a = ((uintptr_t)from + page - 1) & ~(uintptr_t)(page - 1), z = (uintptr_t)to & ~(uintptr_t)(page - 1);
    if (z > a && z - a >= SB_DISCARD)
        madvise((void *)a, z - a, MADV_DONTNEED);
}

/* Makes the size bytes at b a free block: merged with free neighbours,
 * given back to the top when it reaches it, else on its list. The block
 * before b is in use unless b's B_PREV_USED is clear. */
static void region_put(aw_sandbox *sb, char *b, size_t size, int prev_used)
{
    char *next = b + size;
    if (next != sb->region_top && !(word(next, 1) & B_USED)) {
        bin_remove(sb, next);
        size += bsize(next);
        next = b + size;
    }
    if (!prev_used) {
        size_t ps = word(b, 0);
        b -= ps;
        bin_remove(sb, b);
        size += ps;
    }
    SB_POISON(b, size);
    if (size >= SB_DISCARD)
        region_discard(next == sb->region_top ? b : b + 4 * sizeof(size_t), next);
    if (next == sb->region_top) {
        sb->region_top = b; /* the block before b is in use */
        return;
    }
    set_word(b, 1, size | B_PREV_USED);
    set_word(next, 0, size);
    set_word(next, 1, word(next, 1) & ~B_PREV_USED);
    bin_insert(sb, b);
}

/* Cuts a block of need bytes from the block b (of size bytes, in use now):
 * the rest, if large enough, becomes free. */
static void region_trim(aw_sandbox *sb, char *b, size_t size, size_t need)
{
    size_t flags = word(b, 1) & B_FLAGS;
    if (size - need < SB_BIG_MIN) {
        set_word(b, 1, size | flags);
        char *next = b + size;
        if (next != sb->region_top)
            set_word(next, 1, word(next, 1) | B_PREV_USED);
        return;
    }
    set_word(b, 1, need | flags);
    region_put(sb, b + need, size - need, 1);
}

/* A block for n bytes of payload (its header before it), or NULL. */
static void *region_get(aw_sandbox *sb, size_t n)
{
    if (n > (size_t)(sb->region_end - sb->region))
        return NULL;
    size_t need = (n + B_HDR + 15) & ~(size_t)15;
    if (need < SB_BIG_MIN)
        need = SB_BIG_MIN;
    unsigned bin = bin_of(need);
    char *b = sb->free_big[bin];
    for (int k = 0; b && k < SB_BIN_SCAN && bsize(b) < need; k++)
        b = link_of(b, 0);
    if (b && bsize(b) < need)
        b = NULL;
    for (unsigned i = bin + 1; !b && i < SB_NBIN; i++)
        b = sb->free_big[i];
    if (b) {
        bin_remove(sb, b);
        size_t size = bsize(b);
        set_word(b, 1, size | B_USED | (word(b, 1) & B_PREV_USED));
        region_trim(sb, b, size, need);
    } else {
        if ((size_t)(sb->region_end - sb->region_top) < need)
            return NULL;
        b = sb->region_top;
        sb->region_top += need;
        set_word(b, 1, need | B_USED | B_PREV_USED);
    }
    SB_UNPOISON(b + B_HDR, n);
    return b + B_HDR;
}

static void region_free(aw_sandbox *sb, void *p)
{
    char *b = (char *)p - B_HDR;
    size_t w = word(b, 1);
    region_put(sb, b, w & ~B_FLAGS, (w & B_PREV_USED) != 0);
}

/* The block p (osize bytes of payload) resized to n bytes in place, or
 * NULL (p then still valid). */
static void *region_resize_in_place(aw_sandbox *sb, void *p, size_t osize, size_t n)
{
    char *b = (char *)p - B_HDR;
    size_t size = bsize(b);
    size_t need = (n + B_HDR + 15) & ~(size_t)15;
    if (n > (size_t)(sb->region_end - sb->region))
        return NULL;
    if (need < SB_BIG_MIN)
        need = SB_BIG_MIN;
    char *next = b + size;
    if (need > size) {
        if (next == sb->region_top) {
            if ((size_t)(sb->region_end - b) < need)
                return NULL;
            sb->region_top = b + need;
            set_word(b, 1, need | (word(b, 1) & B_FLAGS));
        } else if (!(word(next, 1) & B_USED) && size + bsize(next) >= need) {
            size_t more = bsize(next);
            bin_remove(sb, next);
            region_trim(sb, b, size + more, need);
        } else {
            return NULL;
        }
    } else {
        region_trim(sb, b, size, need);
    }
    if (n > osize)
        SB_UNPOISON((char *)p + osize, n - osize);
    else
        SB_POISON((char *)p + n, osize - n);
    return p;
}

/* Reserves the region: at the first free multiple of 4 GiB from 32 TiB up
 * (above AddressSanitizer's shadow), so that the low 32 bits of an address
 * are its offset; anywhere if no such place is free. */
static char *region_reserve(size_t size)
{
    const int prot = PROT_READ | PROT_WRITE;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#if UINTPTR_MAX > 0xffffffffu && defined(MAP_FIXED_NOREPLACE)
    const uintptr_t align = (uintptr_t)1 << 32;
    uintptr_t step = (size + align - 1) & ~(align - 1);
    for (uintptr_t at = (uintptr_t)32 << 40; at < ((uintptr_t)96 << 40); at += step) {
        void *p = mmap((void *)at, size, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == (void *)at)
            return p;
        if (p != MAP_FAILED) { /* a kernel that takes the address as a hint */
            munmap(p, size);
            break;
        }
        if (errno != EEXIST)
            break;
    }
#endif
    void *p = mmap(NULL, size, prot, flags, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int sb_heap_init(aw_sandbox *sb)
{
    if (!sb->region) {
        size_t size = SB_FOOTPRINT(sb->lim.memory_bytes);
        size = size > SIZE_MAX / 2 - SB_SLACK ? SIZE_MAX / 2 : size + SB_SLACK;
        size = (size + 0xfff) & ~(size_t)0xfff;
        sb->region = region_reserve(size);
        if (!sb->region)
            return -1;
        sb->region_end = sb->region + size;
        SB_POISON(sb->region, size);
    }
    sb->region_top = sb->region;
    memset(sb->free_big, 0, sizeof sb->free_big);
    memset(sb->free_small, 0, sizeof sb->free_small);
    sb->bump = sb->bump_end = NULL;
    sb->arena_bytes = 0;
    return 0;
}

/* Frees everything the state ever got from the allocator, without Lua:
 * after lua_close, or for a state the last resort abandoned. The region
 * stays reserved (sb_heap_unmap gives it back). */
void sb_heap_release(aw_sandbox *sb)
{
    if (!sb->region)
        return;
    size_t used = (size_t)(sb->region_top - sb->region);
    SB_POISON(sb->region, used);
    if (used)
        madvise(sb->region, used, MADV_DONTNEED);
    sb_heap_init(sb);
    sb->used = 0;
}

void sb_heap_unmap(aw_sandbox *sb)
{
    if (!sb->region)
        return;
    size_t size = (size_t)(sb->region_end - sb->region);
    SB_UNPOISON(sb->region, size);
    munmap(sb->region, size);
    sb->region = sb->region_top = sb->region_end = NULL;
}

/* ---- small blocks -------------------------------------------------------- */

/* A new chunk to cut blocks from (the rest of the old one is left unused:
 * less than SB_SMALL_MAX bytes). */
static int new_chunk(aw_sandbox *sb)
{
    size_t size = sb->arena_bytes < SB_CHUNK_MIN ? SB_CHUNK_MIN : sb->arena_bytes;
    if (size > SB_CHUNK_MAX)
        size = SB_CHUNK_MAX;
    size -= B_HDR;
    char *c = region_get(sb, size);
    if (!c)
        return 0;
    sb->arena_bytes += size;
    sb->bump = c;
    sb->bump_end = c + size;
    SB_POISON(c, size);
    return 1;
}

/* A small block of n bytes, or NULL. (Inlined: it is most of what Lua
 * asks for.) */
static inline __attribute__((always_inline)) void *small_get(aw_sandbox *sb, size_t n)
{
    unsigned c = class_of(n);
    sb_free *f = sb->free_small[c];
    if (f) {
        SB_UNPOISON(f, sizeof *f);
        sb->free_small[c] = f->next;
    } else {
        size_t sz = class_size(c);
        if ((size_t)(sb->bump_end - sb->bump) < sz && !new_chunk(sb))
            return NULL;
        f = (sb_free *)sb->bump;
        sb->bump += sz;
    }
    SB_POISON(f, class_size(c)); /* a redzone behind the block */
    SB_UNPOISON(f, n);
    return f;
}

static inline __attribute__((always_inline)) void small_put(aw_sandbox *sb, void *p, size_t n)
{
    unsigned c = class_of(n);
    sb_free *f = p;
    SB_UNPOISON(f, sizeof *f);
    f->next = sb->free_small[c];
    sb->free_small[c] = f;
    SB_POISON(f, class_size(c));
}

/* A large block of n bytes made from the large block p of osize bytes (or a
 * new one when p is NULL); NULL on failure, p then still valid. */
static void *big_resize(aw_sandbox *sb, void *p, size_t osize, size_t n)
{
    if (!p)
        return region_get(sb, n);
    void *q = region_resize_in_place(sb, p, osize, n);
    if (q)
        return q;
    q = region_get(sb, n);
    if (!q)
        return NULL;
    memcpy(q, p, osize < n ? osize : n);
    region_free(sb, p);
    return q;
}

/* Moves a block between the arena and the large blocks (or between
 * classes); on failure returns NULL and leaves the old block as it was. */
static void *move_block(aw_sandbox *sb, void *p, size_t osize, size_t n)
{
    void *q = is_small(n) ? small_get(sb, n) : region_get(sb, n);
    if (!q)
        return NULL;
    memcpy(q, p, osize < n ? osize : n);
    if (is_small(osize))
        small_put(sb, p, osize);
    else
        region_free(sb, p);
    return q;
}

void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    aw_sandbox *sb = ud;
    if (ptr == NULL && nsize == 0)
        return NULL;
    if (nsize == 0) {
        if (is_small(osize))
            small_put(sb, ptr, osize);
        else
            region_free(sb, ptr);
        sb->used -= osize;
        return NULL;
    }
    /* A new object of more than 128 bytes that Lua says (through osize, see
     * lua_Alloc) is a string is a long string (short ones, at most 40
     * bytes, are interned and may or may not be allocated depending on the
     * collector): it is created anew every time, so charging its bytes is
     * deterministic. This prices concatenation, string.format, gsub results,
     * table.concat... */
    int long_string = ptr == NULL && osize == LUA_TSTRING && nsize > 128;
    if (ptr == NULL)
        osize = 0;
    if (nsize > osize) {
        size_t grow = nsize - osize;
        if (grow > sb->lim.memory_bytes || sb->used > sb->lim.memory_bytes - grow) {
            /* Failing here makes Lua collect and retry, then raise a memory
             * error: a moment to look at the clock too. Which limit came
             * first decides the fault's kind: the emergency collection
             * that follows can take the call past its deadline, which must
             * not turn a memory fault into a time-out. */
            if (sb->in_call && !sb->expired)
                sb->cap_first = 1;
            sb_past_deadline(sb);
            return NULL;
        }
        sb->grown += grow;
        sb->allocated += grow;
        sb->since_gc += grow;
        /* Near the cap, ask for a full collection at the next safe point
         * (an LPeg constructor, see sb_lpeg_gc): allocation failures only
         * trigger emergency collections, which never run finalizers, so
         * garbage with a C __gc (LPeg patterns built in a loop) would
         * otherwise pin the memory until the call fails. Throttled to once
         * per eighth of the cap. */
        if (sb->used > sb->lim.memory_bytes / 8 * 6 && sb->since_gc > sb->lim.memory_bytes / 8 && sb->in_call &&
            !sb->want_gc)
            sb->want_gc = 1;
        if (sb->grown >= SB_ALLOC_CHECK) {
            sb->grown = 0;
            sb_past_deadline(sb);
        }
    }
    void *p;
    if (!ptr) {
        p = is_small(nsize) ? small_get(sb, nsize) : big_resize(sb, NULL, 0, nsize);
    } else if (is_small(osize) && is_small(nsize)) {
        if (class_of(osize) == class_of(nsize)) {
            p = ptr;
            SB_POISON(ptr, class_size(class_of(osize)));
            SB_UNPOISON(ptr, nsize);
        } else {
            p = move_block(sb, ptr, osize, nsize);
            if (!p && nsize < osize) { /* keep the larger block: it fits */
                p = ptr;
                SB_POISON(ptr, class_size(class_of(osize)));
                SB_UNPOISON(ptr, nsize);
            }
        }
    } else if (!is_small(osize) && !is_small(nsize)) {
        p = big_resize(sb, ptr, osize, nsize); /* shrinking never fails */
    } else {
        p = move_block(sb, ptr, osize, nsize);
        if (!p && nsize < osize) {
            /* Lua assumes shrinking never fails, but the arena has no room:
             * the large block stays (as a small one now: when Lua frees it,
             * it joins the free list of its new class, and the region's
             * block is given back only with the region). */
            p = ptr;
            SB_POISON((char *)ptr + nsize, osize - nsize);
        }
    }
    if (!p)
        return NULL;
    sb->used = sb->used - osize + nsize;
    if (sb->used > sb->peak)
        sb->peak = sb->used;
    if (long_string && sb->in_call) {
        sb->units += nsize / 16;
        if (sb_over_work(sb))
            sb_rearm(sb); /* cannot raise here: the next instruction will */
    }
    return p;
}
