// The glibc 2.38 functions that Debian 13's static Swift runtime (libswiftCore, libdispatch,
// CoreFoundation and Foundation's ICU, built against glibc 2.41 and GCC 14's libstdc++) calls,
// for a program that runs on Debian 12 (glibc 2.36, libstdc++ from GCC 12). Linked only into the
// arm64 Debian 12 release build (deploy/arm64/build.sh bookworm release); no other build sees it.
//
// - __isoc23_strtol, __isoc23_strtoll, __isoc23_strtoul: what <stdlib.h> calls strtol, strtoll
//   and strtoul when compiled as C23 (or C++ with _GNU_SOURCE) against glibc 2.38 or later. They
//   differ from the old functions in one thing only: with base 0 or 2 they accept a "0b" or "0B"
//   prefix before binary digits. Done here: the prefix is read, the digits go to the old function.
// - __isoc23_sscanf: the same for sscanf: C23's "%i" accepts "0b" and C23 adds "%b". Forwarded to
//   vsscanf unchanged, which has neither: the callers (the runtime's reading of /proc and of
//   environment variables, CoreFoundation's UUID parser) use "%d", "%x", "%lu" and "%s" only.
// - strlcpy, strlcat: new in glibc 2.38 (from the BSDs); written here as the BSDs define them.
// - std::ios_base_library_init(): GCC 13's <iostream> refers to it instead of constructing a
//   std::ios_base::Init in every file that includes it, and GCC 13's libstdc++ initializes the
//   standard streams itself. GCC 12's does neither: here the symbol is defined, and one
//   std::ios_base::Init is constructed before main and destroyed (flushing the streams) at exit,
//   as GCC 12's <iostream> does.
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Whether `text` (after white space and a sign) is a C23 binary literal for `base`: "0b" or "0B"
// followed by a binary digit. Sets *digits to the first digit and *negative to the sign.
static int binary_prefix(const char *text, int base, const char **digits, int *negative) {
    if (base != 0 && base != 2) return 0;
    const char *p = text;
    while (isspace((unsigned char)*p)) p++;
    *negative = 0;
    if (*p == '+' || *p == '-') { *negative = (*p == '-'); p++; }
    if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) {
        *digits = p + 2;
        return 1;
    }
    return 0;
}

// The magnitude of binary digits as strtoull reads them; *overflow tells whether it overflowed.
// errno is left as it was: the callers set ERANGE themselves, with the value they return.
static unsigned long long binary_magnitude(const char *digits, char **endptr, int *overflow) {
    int saved = errno;
    errno = 0;
    unsigned long long magnitude = strtoull(digits, endptr, 2);
    *overflow = (errno == ERANGE);
    errno = saved;
    return magnitude;
}

long long __isoc23_strtoll(const char *nptr, char **endptr, int base) {
    const char *digits;
    int negative;
    if (!binary_prefix(nptr, base, &digits, &negative)) return strtoll(nptr, endptr, base);
    int overflow;
    unsigned long long magnitude = binary_magnitude(digits, endptr, &overflow);
    if (negative) {
        if (overflow || magnitude > (unsigned long long)LLONG_MAX + 1) { errno = ERANGE; return LLONG_MIN; }
        return magnitude == 0 ? 0 : -(long long)(magnitude - 1) - 1;
    }
    if (overflow || magnitude > (unsigned long long)LLONG_MAX) { errno = ERANGE; return LLONG_MAX; }
    return (long long)magnitude;
}

long __isoc23_strtol(const char *nptr, char **endptr, int base) {
    // long and long long are both 64 bits on aarch64 (LP64).
    _Static_assert(sizeof(long) == sizeof(long long), "LP64 only");
    return (long)__isoc23_strtoll(nptr, endptr, base);
}

unsigned long __isoc23_strtoul(const char *nptr, char **endptr, int base) {
    const char *digits;
    int negative;
    if (!binary_prefix(nptr, base, &digits, &negative)) return strtoul(nptr, endptr, base);
    int overflow;
    unsigned long long magnitude = binary_magnitude(digits, endptr, &overflow);
    if (overflow) { errno = ERANGE; return ULONG_MAX; }
    // As strtoul does: a minus sign negates the value in unsigned arithmetic.
    return negative ? -(unsigned long)magnitude : (unsigned long)magnitude;
}

int __isoc23_sscanf(const char *text, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int matched = vsscanf(text, format, arguments);
    va_end(arguments);
    return matched;
}

size_t strlcpy(char *destination, const char *source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t copied = length < size ? length : size - 1;
        memcpy(destination, source, copied);
        destination[copied] = '\0';
    }
    return length;
}

size_t strlcat(char *destination, const char *source, size_t size) {
    size_t used = strnlen(destination, size);
    if (used == size) return size + strlen(source);
    return used + strlcpy(destination + used, source, size - used);
}

// std::ios_base::Init::Init() and ~Init(), from GCC 12's libstdc++.so.6 (GLIBCXX_3.4).
extern void _ZNSt8ios_base4InitC1Ev(void *self);
extern void _ZNSt8ios_base4InitD1Ev(void *self);
static char standard_streams[1]; // std::ios_base::Init is an empty class.

void _ZSt21ios_base_library_initv(void) {}

__attribute__((constructor(101))) static void standard_streams_open(void) {
    _ZNSt8ios_base4InitC1Ev(standard_streams);
}

__attribute__((destructor(101))) static void standard_streams_close(void) {
    _ZNSt8ios_base4InitD1Ev(standard_streams);
}
