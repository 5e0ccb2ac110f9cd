#ifndef HEARTH_CZEROMQ_SHIM_H
#define HEARTH_CZEROMQ_SHIM_H
#include <zmq.h>
#include <sys/eventfd.h>
#endif
