/* The firmware's main job, shared by the target image and host builds. */
#ifndef ANEFW_JOB_H
#define ANEFW_JOB_H

/* The command line's buffer: the host's line (its program name, the words and a NUL) fits
 * these bytes or is not read at all (anefw_job_cmdline_unreadable). */
#define JOB_CMDLINE_MAX 4096

/* Runs the main job for a command line ("key=value ..."); returns the exit status. */
int anefw_job(const char *cmdline);

/* The job when the host has a command line but did not give it (longer than JOB_CMDLINE_MAX - 1
 * bytes with the program name, or the host's call failed): the banner, an error saying so and
 * the failed verdict; returns the exit status, 1. Nothing runs: an unread line is not an empty
 * one. */
int anefw_job_cmdline_unreadable(void);

#endif
