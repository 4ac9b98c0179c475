/* IEEE 754 binary16 <-> binary32, round to nearest even. */
#ifndef A2_FP16_H
#define A2_FP16_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

float a2_f16_to_f32(uint16_t h);
uint16_t a2_f32_to_f16(float f);

#ifdef __cplusplus
}
#endif
#endif
