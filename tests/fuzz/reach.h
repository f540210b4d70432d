/*
 * A fuzzing campaign's reach, for the targets that run programs (fuzz_agree, fuzz_submit): how
 * many inputs ended in each verdict, by kind and name (the loader's, the control path's and the
 * session's refusals by name, the model's by its fault reason and why), printed on stderr at exit
 * when the environment variable the target names is set (FUZZ_AGREE_STATS, FUZZ_SUBMIT_STATS).
 * Names are static texts or copied, so the pointers and the texts are the keys.
 */
#ifndef ANEFW_TESTS_FUZZ_REACH_H
#define ANEFW_TESTS_FUZZ_REACH_H

#include "engine/engine.h"

/* Reads the environment variable env once; when it is set, registers the print at exit: the
 * target's own summary line (summary, may be NULL), then one line per kind and name, "TARGET:
 * reach N  KIND: NAME", most reached first within a kind. */
void reach_init(const char *env, const char *target, void (*summary)(void));
int reach_on(void);
/* One input more reached kind: name (nothing when the statistics are off). */
void reach_count(const char *kind, const char *name);
/* One input more reached the engine and ended so: "completed: every TD", the model's fault by its
 * reason's name and why, or another engine error by its name. */
void reach_engine(int run, const struct eng_fault *f);

#endif
