#ifndef SWITCHBOARD_CCRYPTO_SHIM_H
#define SWITCHBOARD_CCRYPTO_SHIM_H
// OpenSSL's libcrypto 3.x (3.0 on Debian 12 / Raspberry Pi OS Bookworm, 3.5 on Debian 13 / Trixie):
// digests, HKDF, ChaCha20-Poly1305, X25519 and Ed25519 through EVP, BIGNUM, RAND.
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#endif
