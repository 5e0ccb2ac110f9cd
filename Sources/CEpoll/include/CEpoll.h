// Linux epoll for the load generator's event loop (Swift's Glibc module does not export sys/epoll.h).
#include <sys/epoll.h>
