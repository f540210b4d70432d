/* Native (host) implementation of the HAL: what a host build needs beyond hal/hal.h. */
#ifndef ANEFW_HAL_HOST_H
#define ANEFW_HAL_HOST_H

/* The host "command line" is the program's arguments after argv[0], joined by spaces. */
void hal_host_set_args(int argc, char **argv);

#endif
