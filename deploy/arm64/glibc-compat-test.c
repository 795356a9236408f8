// Checks deploy/arm64/glibc-compat.c on this machine (deploy/package-test.sh compiles and runs it):
// the C23 strtol family reads 0b prefixes, as glibc 2.38 does; sscanf, strlcpy and strlcat as the
// callers of the static Swift runtime expect. Prints one line per failed check; exits 1 on any.
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
long __isoc23_strtol(const char *, char **, int);
unsigned long __isoc23_strtoul(const char *, char **, int);
long long __isoc23_strtoll(const char *, char **, int);
int __isoc23_sscanf(const char *, const char *, ...);
size_t strlcpy(char *, const char *, size_t);
size_t strlcat(char *, const char *, size_t);
int main(void) {
    int bad = 0; char *end;
#define T(c) do { if (!(c)) { printf("FAIL %s\n", #c); bad = 1; } } while (0)
    T(__isoc23_strtol("0b101", &end, 0) == 5 && *end == 0);
    T(__isoc23_strtol(" -0b11x", &end, 2) == -3 && *end == 'x');
    T(__isoc23_strtol("0x1f", &end, 0) == 31);
    T(__isoc23_strtol("0b", &end, 0) == 0 && *end == 'b');
    T(__isoc23_strtol("12", &end, 10) == 12);
    errno = 0; T(__isoc23_strtoll("-0b1000000000000000000000000000000000000000000000000000000000000000", &end, 0) == LLONG_MIN && errno == 0);
    errno = 0; T(__isoc23_strtoll("0b1000000000000000000000000000000000000000000000000000000000000000", &end, 0) == LLONG_MAX && errno == ERANGE);
    T(__isoc23_strtoul("-0b1", &end, 0) == ULONG_MAX);
    int a = 0; unsigned b = 0; T(__isoc23_sscanf("7 ff", "%d %x", &a, &b) == 2 && a == 7 && b == 255);
    char buf[6]; T(strlcpy(buf, "switchboard", sizeof buf) == 11 && strcmp(buf, "switc") == 0);
    char cat[8] = "ab"; T(strlcat(cat, "cdefghij", sizeof cat) == 10 && strcmp(cat, "abcdefg") == 0);
    puts(bad ? "compat: FAILED" : "compat: all ok");
    return bad;
}
