// Headers only; SwiftPM needs one source file for a C target.
#include "CEpoll.h"
