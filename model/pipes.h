/* The pipes of a vector core (core.c): each executes its instructions in
 * order, and different pipes overlap. Waits are resolved at dispatch. The
 * timeline names a core's tracks after them (observe.c). */
#ifndef A2_PIPES_H
#define A2_PIPES_H

enum { PIPE_MTE_IN = 0, PIPE_MTE_OUT, PIPE_VEC, PIPE_SCALAR, PIPE_DMA, NPIPES };

#endif
