// libsodium, which libzmq already links for CURVE (Debian's libzmq3-dev depends on libsodium-dev): the broker's
// passcode hash uses its scrypt, so that no second crypto library (swift-crypto and its BoringSSL) is built for it.
#include <sodium.h>
