/* big-alloc.h — memory for the executor's arenas, weights and outside tensors: zeroed, 64-byte aligned, and
 * on transparent huge pages when large (see big-alloc.c). */
#ifndef SIM_BIG_ALLOC_H
#define SIM_BIG_ALLOC_H

#include <glib.h>

/* `bytes` zeroed bytes aligned to 64, or NULL when the system refuses them. Free with big_alloc_free. */
void *big_alloc(guint64 bytes);
void big_alloc_free(void *p);
/* The bytes every block big_alloc handed out and big_alloc_free has not taken back spans, in this process. */
guint64 big_alloc_held(void);
/* The memory the system could give this process when the first run started (MemAvailable). */
guint64 big_alloc_available(void);
/* What a run may still take: big_alloc_available less big_alloc_held (0 when past it). */
guint64 big_alloc_room(void);
/* big_alloc's bytes when they fit the room (rounded as a block counts them), else NULL: the run's one memory
 * account, which the arena, weights, outside tensors and the kernels' own memory all go through. */
void *big_alloc_within(guint64 bytes);

#endif
