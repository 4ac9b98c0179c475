/* The pipes of a core (core.c): each executes its instructions in order,
 * and different pipes overlap. Waits are resolved at dispatch. The timeline
 * names a core's tracks after them (observe.c). A cube (AIC) core uses
 * MTE_IN as its MTE2 (GM -> L1), MTE_OUT as its FixPipe (L0C -> GM), MTE1
 * (L1 -> L0A/L0B) and CUBE (cube.c). */
#ifndef A2_PIPES_H
#define A2_PIPES_H

enum {
  PIPE_MTE_IN = 0,
  PIPE_MTE_OUT,
  PIPE_VEC,
  PIPE_SCALAR,
  PIPE_DMA,
  PIPE_MTE1,
  PIPE_CUBE,
  NPIPES
};

#endif
