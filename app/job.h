/* The firmware's main job, shared by the target image and host builds. */
#ifndef ANEFW_JOB_H
#define ANEFW_JOB_H

/* Runs the main job for a command line ("key=value ..."); returns the exit status. */
int anefw_job(const char *cmdline);

#endif
