/*
 * gen.c writes the reference vectors in protocol/testdata/ from glibc's own
 * strtod, strtold, strtoull, strtoul, printf and x87 long double addition,
 * applying the acceptance rules of Redis 7.0's util.c (string2ll, string2ull,
 * string2d, string2ld, d2string, ld2string) and networking/db code
 * (the strtoul-based SCAN cursor check), re-stated here from their behaviour.
 *
 * The output is deterministic (fixed seed), so regenerating on the same
 * glibc gives identical files. Run it from protocol/ (x86-64 Linux, glibc),
 * as shown after this comment; `go test` reads only the .tsv.gz files and
 * never needs gcc.
 *
 * Line formats (tab separated; inputs are Go-quoted strings):
 *   string2ll.tsv   "input"  ok  value
 *   string2ull.tsv  "input"  ok  value
 *   scancursor.tsv  "input"  ok  value
 *   string2d.tsv    "input"  ok  bits(16 hex)
 *   printf_g.tsv    bits(16 hex)  prec  %.<prec>g  %.17g  d2string
 *   string2ld.tsv   "input"  ok  x87(20 hex: sign+exponent 4, mantissa 16)
 *   ldadd.tsv       a(20 hex)  b(20 hex)  a+b(20 hex, or "nan")
 *   ld2string.tsv   x(20 hex)  %.17Lg  human  %La  (double)x(16 hex)
 *   incrbyfloat.tsv "value"  "incr"  reply   (reply "!float" = not a valid
 *                   float, "!naninf" = increment would produce NaN or Infinity)
 */
// gcc -O1 -o /tmp/numgen testdata/gen/gen.c -lquadmath -lm && /tmp/numgen testdata && gzip -9nf testdata/*.tsv
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <quadmath.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static int rn(int n) { return (int)(rnd() % (uint64_t)n); }

/* ---- the Redis 7.0 acceptance rules, restated ---- */

static int r_string2ll(const char *s, size_t n, long long *out) {
    if (n == 0 || n >= 21) return 0;
    if (n == 1 && s[0] == '0') { *out = 0; return 1; }
    size_t i = 0; int neg = 0;
    if (s[0] == '-') { neg = 1; i++; if (i == n) return 0; }
    if (s[i] < '1' || s[i] > '9') return 0;
    unsigned long long v = s[i++] - '0';
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > ULLONG_MAX / 10) return 0;
        v *= 10;
        if (v > ULLONG_MAX - (unsigned)(s[i] - '0')) return 0;
        v += s[i] - '0';
    }
    if (i < n) return 0;
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        *out = (long long)(0 - v);
    } else {
        if (v > LLONG_MAX) return 0;
        *out = (long long)v;
    }
    return 1;
}

/* string2ull works on a C string: string2ll first, then strtoull. */
static int r_string2ull(const char *s, unsigned long long *out) {
    long long ll;
    if (r_string2ll(s, strlen(s), &ll)) {
        if (ll < 0) return 0;
        *out = (unsigned long long)ll;
        return 1;
    }
    errno = 0;
    char *end = NULL;
    *out = strtoull(s, &end, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *end == '\0')) return 0;
    return 1;
}

/* 7.0 parseScanCursorOrReply: strtoul on the C string. */
static int r_scancursor(const char *s, unsigned long *out) {
    char *end;
    errno = 0;
    *out = strtoul(s, &end, 10);
    if (isspace((unsigned char)s[0]) || end[0] != '\0' || errno == ERANGE) return 0;
    return 1;
}

static int r_string2d(const char *s, size_t n, double *d) {
    char *end;
    errno = 0;
    *d = strtod(s, &end);
    if (n == 0 || isspace((unsigned char)s[0]) || (size_t)(end - s) != n ||
        (errno == ERANGE && (*d == HUGE_VAL || *d == -HUGE_VAL || fpclassify(*d) == FP_ZERO)) ||
        isnan(*d))
        return 0;
    return 1;
}

#define LDCHARS (5 * 1024)
static int r_string2ld(const char *s, size_t n, long double *d) {
    char buf[LDCHARS], *end;
    if (n == 0 || n >= sizeof(buf)) return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    long double v = strtold(buf, &end);
    if (isspace((unsigned char)buf[0]) || end[0] != '\0' || (size_t)(end - buf) != n ||
        (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || fpclassify(v) == FP_ZERO)) ||
        errno == EINVAL || isnan(v))
        return 0;
    *d = v;
    return 1;
}

static int r_d2string(char *buf, size_t len, double v) {
    if (isnan(v)) return snprintf(buf, len, "nan");
    if (isinf(v)) return snprintf(buf, len, v < 0 ? "-inf" : "inf");
    if (v == 0) return snprintf(buf, len, 1.0 / v < 0 ? "-0" : "0");
    if (!(v < (double)(-LLONG_MAX / 2) || v > (double)(LLONG_MAX / 2))) {
        long long ll = (long long)v;
        if ((double)ll == v) return snprintf(buf, len, "%lld", ll);
    }
    return snprintf(buf, len, "%.17g", v);
}

enum { LD_AUTO, LD_HUMAN, LD_HEX };
static int r_ld2string(char *buf, size_t len, long double v, int mode) {
    size_t l;
    if (isinf(v)) return snprintf(buf, len, v > 0 ? "inf" : "-inf");
    switch (mode) {
    case LD_AUTO: l = snprintf(buf, len, "%.17Lg", v); break;
    case LD_HEX: l = snprintf(buf, len, "%La", v); break;
    default:
        l = snprintf(buf, len, "%.17Lf", v);
        if (strchr(buf, '.') != NULL) {
            char *p = buf + l - 1;
            while (*p == '0') { p--; l--; }
            if (*p == '.') l--;
        }
        if (l == 2 && buf[0] == '-' && buf[1] == '0') { buf[0] = '0'; l = 1; }
    }
    if (l + 1 > len) l = 0;
    buf[l] = 0;
    return (int)l;
}

/* ---- output helpers ---- */

static void putq(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

typedef union { long double v; struct { uint64_t m; uint16_t se; } b; } ldbits;
static void putld(FILE *f, long double v) {
    ldbits u; memset(&u, 0, sizeof u); u.v = v;
    fprintf(f, "%04x%016llx", u.b.se, (unsigned long long)u.b.m);
}
static long double mkld(int neg, unsigned bexp, uint64_t mant) {
    ldbits u; memset(&u, 0, sizeof u);
    u.b.m = mant; u.b.se = (uint16_t)((neg ? 0x8000 : 0) | bexp);
    return u.v;
}
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double bitsd(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static FILE *open_out(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    return f;
}

/* ---- random inputs ---- */

static const char *expbands[] = {"0", "1", "2", "5", "9", "16", "17", "18", "19", "20", "22", "27", "28", "30", "100",
    "290", "307", "308", "309", "310", "320", "323", "324", "325", "330", "343", "400", "1000", "4000", "4931", "4932",
    "4933", "4940", "4950", "4951", "4952", "4965", "4966", "5000", "99999", "999999999999999999999"};

static size_t gen_digits(char *p, int n) {
    for (int i = 0; i < n; i++) p[i] = (char)('0' + rn(10));
    return (size_t)n;
}

/* A random strtod subject, sometimes broken on purpose. */
static size_t gen_number(char *s) {
    size_t n = 0;
    int r = rn(100);
    if (r < 12) s[n++] = '-';
    else if (r < 18) s[n++] = '+';
    int kind = rn(100);
    if (kind < 6) { /* inf, infinity, nan forms */
        static const char *w[] = {"inf", "INF", "Inf", "infinity", "Infinity", "INFINITY", "infinit", "infx", "in",
            "nan", "NaN", "nan(123)", "nan()", "nan(", "nanq", "infinityy"};
        const char *x = w[rn(16)];
        memcpy(s + n, x, strlen(x)); n += strlen(x);
    } else if (kind < 18) { /* hexadecimal */
        s[n++] = '0'; s[n++] = rn(2) ? 'x' : 'X';
        int lz = rn(4) == 0 ? rn(20) : 0;
        for (int i = 0; i < lz; i++) s[n++] = '0';
        int nd = rn(10) == 0 ? rn(40) : rn(18);
        int dot = rn(3) == 0 ? rn(nd + 1) : -1;
        for (int i = 0; i < nd; i++) {
            if (i == dot) s[n++] = '.';
            s[n++] = "0123456789abcdefABCDEF"[rn(22)];
        }
        if (dot == nd) s[n++] = '.';
        if (rn(4)) {
            s[n++] = rn(2) ? 'p' : 'P';
            int sg = rn(3); if (sg == 1) s[n++] = '-'; else if (sg == 2) s[n++] = '+';
            static const char *pe[] = {"0", "1", "3", "60", "64", "1020", "1021", "1022", "1023", "1024", "1070",
                "1074", "1075", "1076", "16380", "16381", "16382", "16383", "16384", "16440", "16445", "16446",
                "16447", "16448", "99999999999"};
            const char *x = rn(3) ? pe[rn(25)] : "";
            if (!*x) n += snprintf(s + n, 8, "%d", rn(20000));
            else { memcpy(s + n, x, strlen(x)); n += strlen(x); }
        }
    } else { /* decimal */
        int nd;
        int c = rn(100);
        if (c < 35) nd = 1 + rn(3); else if (c < 75) nd = 4 + rn(16); else if (c < 93) nd = 20 + rn(21); else nd = 41 + rn(120);
        if (rn(8) == 0) { int lz = 1 + rn(5); for (int i = 0; i < lz; i++) s[n++] = '0'; }
        int dot = rn(2) ? rn(nd + 1) : -1;
        for (int i = 0; i < nd; i++) {
            if (i == dot) s[n++] = '.';
            n += gen_digits(s + n, 1);
        }
        if (dot == nd) s[n++] = '.';
        if (rn(7) == 0) { int tz = 1 + rn(6); for (int i = 0; i < tz; i++) s[n++] = '0'; }
        if (rn(2)) {
            s[n++] = rn(2) ? 'e' : 'E';
            int sg = rn(3); if (sg == 1) s[n++] = '-'; else if (sg == 2) s[n++] = '+';
            const char *x = expbands[rn(sizeof expbands / sizeof *expbands)];
            memcpy(s + n, x, strlen(x)); n += strlen(x);
        }
    }
    if (rn(12) == 0) { /* break it */
        static const char junk[] = " \t\n\v\f\r.eEpPx+-_a0";
        size_t at = (size_t)rn((int)n + 1);
        memmove(s + at + 1, s + at, n - at);
        s[at] = junk[rn((int)sizeof junk - 1)];
        n++;
    } else if (rn(30) == 0 && n > 0) {
        n--; /* truncate */
    }
    s[n] = 0;
    return n;
}

/* Exact decimal text of a value halfway between two neighbours, optionally nudged. */
static size_t tie_text(char *s, size_t cap, const char *exact, int nudge) {
    /* exact is like "-1.234000e-05": strip the mantissa's trailing zeros. */
    const char *e = strchr(exact, 'e');
    if (e == NULL) return 0; /* inf or nan */
    size_t m = (size_t)(e - exact);
    while (m > 0 && exact[m - 1] == '0') m--;
    if (m > 0 && exact[m - 1] == '.') m--;
    if (m + strlen(e) + 2 >= cap) return 0;
    size_t n = 0;
    memcpy(s, exact, m); n = m;
    if (nudge > 0) { /* append digits: moves away from zero */
        if (!memchr(s, '.', n)) s[n++] = '.';
        s[n++] = '0';
        s[n++] = '1';
    }
    if (nudge < 0 && n > 0) { /* drop the last digit: moves towards zero */
        if (s[n - 1] != '.' && (n < 2 || s[n - 2] != '.')) n--;
    }
    size_t el = strlen(e);
    memcpy(s + n, e, el); n += el;
    s[n] = 0;
    return n;
}

static long double rand_ld(void) {
    int neg = rn(2);
    int c = rn(100);
    unsigned bexp;
    uint64_t mant = rnd() | (1ULL << 63);
    if (rn(5) == 0) mant &= ~0ULL << rn(64); /* few significant bits */
    if (rn(10) == 0) mant |= (1ULL << rn(63)) - 1; /* runs of ones */
    if (c < 40) bexp = 16383 - 70 + rn(140);        /* around 1 */
    else if (c < 55) bexp = 16383 + rn(70);         /* up to 2^70: near the 2^64 edge */
    else if (c < 70) bexp = 1 + rn(0x7ffe);         /* anywhere */
    else if (c < 80) bexp = 0x7ffe - rn(3);         /* near overflow */
    else if (c < 90) bexp = 1 + rn(3);              /* near underflow */
    else if (c < 95) { bexp = 0; mant = rn(64) ? mant >> (1 + rn(63)) : 0; } /* subnormal or zero */
    else if (c < 98) return neg ? -0.0L : 0.0L;
    else return neg ? -INFINITY : INFINITY;
    return mkld(neg, bexp, mant);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    static char s[LDCHARS * 3], buf[LDCHARS * 2], b2[LDCHARS * 2], b3[LDCHARS * 2];

    /* integers */
    FILE *f = open_out(dir, "string2ll.tsv"), *g = open_out(dir, "string2ull.tsv"), *h = open_out(dir, "scancursor.tsv");
    for (int i = 0; i < 2000; i++) {
        static const char alpha[] = "0123456789999-+ x\t";
        size_t n;
        int c = rn(10);
        if (c < 3) { /* near the 64-bit edges */
            static const char *edge[] = {"9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "-9223372036854775809", "18446744073709551615", "18446744073709551616", "-18446744073709551615",
                "-18446744073709551616", "99999999999999999999", "4294967295", "4294967296"};
            n = (size_t)sprintf(s, "%s", edge[rn(11)]);
            if (rn(2)) s[n - 1 - rn(3)] = (char)('0' + rn(10));
            if (rn(4) == 0) { memmove(s + 1, s, n + 1); s[0] = "0+- "[rn(4)]; n++; }
        } else {
            n = (size_t)rn(c < 8 ? 6 : 24);
            for (size_t k = 0; k < n; k++) s[k] = c < 8 ? "0123456789-+ "[rn(13)] : alpha[rn((int)sizeof alpha - 1)];
            if (c >= 8 && n > 0 && rn(2)) s[0] = (char)('1' + rn(9));
        }
        s[n] = 0;
        long long ll = 0; unsigned long long ull = 0; unsigned long ul = 0;
        int ok = r_string2ll(s, n, &ll);
        putq(f, s, n); fprintf(f, "\t%d\t%lld\n", ok, ok ? ll : 0);
        ok = r_string2ull(s, &ull);
        putq(g, s, n); fprintf(g, "\t%d\t%llu\n", ok, ok ? ull : 0);
        ok = r_scancursor(s, &ul);
        putq(h, s, n); fprintf(h, "\t%d\t%lu\n", ok, ok ? ul : 0);
    }
    fclose(f); fclose(g); fclose(h);

    /* strtod */
    f = open_out(dir, "string2d.tsv");
    for (int i = 0; i < 5000; i++) {
        size_t n;
        if (i % 5 == 4) { /* halfway between two doubles, exactly, above or below */
            double d = bitsd(rnd() & 0x7fffffffffffffffULL);
            if (!isfinite(d)) continue;
            if (rn(3) == 0) d = ldexp(1.0 + (double)rn(1000) / 1024, rn(200) - 100);
            if (rn(8) == 0) d = bitsd(rnd() % 0x0010000000000000ULL); /* subnormal */
            long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
            snprintf(buf, sizeof buf, "%.800Le", mid);
            n = tie_text(s, sizeof s, buf, rn(3) - 1);
            if (n == 0 || (n > 300 && rn(4) != 0)) continue;
        } else {
            n = gen_number(s);
        }
        double d = 0;
        int ok = r_string2d(s, n, &d);
        putq(f, s, n);
        if (ok) fprintf(f, "\t1\t%016llx\n", (unsigned long long)dbits(d));
        else fprintf(f, "\t0\t-\n");
    }
    fclose(f);

    /* printf %g and d2string */
    f = open_out(dir, "printf_g.tsv");
    for (int i = 0; i < 3000; i++) {
        double d;
        int c = rn(10);
        if (c < 3) d = bitsd(rnd());
        else if (c < 5) d = (double)(int64_t)(rnd() >> rn(64)) * (rn(2) ? 1 : -1);
        else if (c < 6) d = ldexp((double)(rnd() >> 11), rn(2) ? 62 - 53 : 63 - 53 - rn(3)) * (rn(2) ? 1 : -1);
        else if (c < 8) d = (double)rn(100000) / (double)(1 + rn(1000)) * pow(10, rn(40) - 20);
        else if (c < 9) d = bitsd(rnd() % 0x0010000000000000ULL);
        else d = (double)rn(1000000) / 1000;
        if (isnan(d)) continue;
        int p = rn(4) ? 17 : rn(25);
        snprintf(buf, sizeof buf, "%.*g", p, d);
        snprintf(b2, sizeof b2, "%.17g", d);
        r_d2string(b3, sizeof b3, d);
        fprintf(f, "%016llx\t%d\t%s\t%s\t%s\n", (unsigned long long)dbits(d), p, buf, b2, b3);
    }
    fclose(f);

    /* strtold */
    f = open_out(dir, "string2ld.tsv");
    for (int i = 0; i < 5000; i++) {
        size_t n;
        if (i % 5 == 4) { /* halfway between two long doubles */
            long double x = rand_ld();
            if (!isfinite(x) || x == 0) continue;
            if (rn(2)) x = ldexpl(1.0L + (long double)rn(1 << 20) / (1 << 20), rn(400) - 200);
            __float128 mid = ((__float128)x + (__float128)nextafterl(x, INFINITY)) / 2;
            if (quadmath_snprintf(buf, sizeof buf, "%.6000Qe", mid) >= (int)sizeof buf) continue;
            n = tie_text(s, sizeof s, buf, rn(3) - 1);
            if (n == 0 || (n > 300 && rn(10) != 0)) continue;
        } else if (i % 17 == 3) { /* round trip of a printed value */
            long double x = rand_ld();
            n = (size_t)snprintf(s, sizeof s, rn(2) ? "%.21Lg" : "%La", x);
        } else {
            n = gen_number(s);
        }
        long double v = 0;
        int ok = r_string2ld(s, n, &v);
        putq(f, s, n);
        if (ok) { fprintf(f, "\t1\t"); putld(f, v); fputc('\n', f); }
        else fprintf(f, "\t0\t-\n");
    }
    /* the length limit */
    memset(s, '1', LDCHARS); 
    for (size_t n = LDCHARS - 2; n <= LDCHARS; n++) {
        long double v = 0; int ok = r_string2ld(s, n, &v);
        putq(f, s, n);
        if (ok) { fprintf(f, "\t1\t"); putld(f, v); fputc('\n', f); } else fprintf(f, "\t0\t-\n");
    }
    fclose(f);

    /* long double addition */
    f = open_out(dir, "ldadd.tsv");
    for (int i = 0; i < 5000; i++) {
        long double a = rand_ld(), b;
        int c = rn(10);
        if (c < 3) b = rand_ld();
        else if (c < 5) b = -a * (1 + ldexpl((long double)(int)(rn(2001) - 1000), -rn(70))); /* cancellation */
        else if (c < 7) b = ldexpl(rand_ld() == 0 ? 1 : fabsl(rand_ld()), 0) * 0 + ldexpl(a, -rn(80)) * (rn(2) ? 1 : -1);
        else if (c < 8) b = nextafterl(a, rn(2) ? INFINITY : -INFINITY) * (rn(2) ? -1 : 1);
        else { /* small decimals, as INCRBYFLOAT sees them */
            snprintf(s, sizeof s, "%d.%0*d", rn(100000) - 50000, 1 + rn(3), rn(1000));
            a = strtold(s, NULL);
            snprintf(s, sizeof s, "%de%d", rn(2000) - 1000, rn(40) - 20);
            b = strtold(s, NULL);
        }
        long double sum = a + b;
        putld(f, a); fputc('\t', f); putld(f, b); fputc('\t', f);
        if (isnan(sum)) fprintf(f, "nan\n"); else { putld(f, sum); fputc('\n', f); }
    }
    fclose(f);

    /* ld2string */
    f = open_out(dir, "ld2string.tsv");
    for (int i = 0; i < 3000; i++) {
        long double x;
        int c = rn(10);
        if (c < 5) x = rand_ld();
        else if (c < 8) { snprintf(s, sizeof s, "%d.%0*d", rn(2000000) - 1000000, 1 + rn(6), rn(1000000)); x = strtold(s, NULL); }
        else if (c < 9) x = (long double)rn(1 << 30) / (1 << rn(31)) * (rn(2) ? 1 : -1); /* exact ties at %.17Lf */
        else x = strtold("0.1", NULL) * rn(1000) + strtold("0.2", NULL) * rn(1000);
        /* keep the file small: huge values only sometimes */
        if (isfinite(x) && fabsl(x) > 1e60L && rn(40) != 0) x = ldexpl(x, -(ilogbl(x) - rn(200)));
        r_ld2string(buf, LDCHARS, x, LD_AUTO);
        r_ld2string(b2, LDCHARS, x, LD_HUMAN);
        r_ld2string(b3, LDCHARS, x, LD_HEX);
        putld(f, x); fprintf(f, "\t%s\t%s\t%s\t%016llx\n", buf, b2, b3, (unsigned long long)dbits((double)x));
    }
    fclose(f);

    /* INCRBYFLOAT, end to end */
    f = open_out(dir, "incrbyfloat.tsv");
    for (int i = 0; i < 3000; i++) {
        size_t n1, n2;
        char s2[512];
        if (rn(3)) {
            n1 = (size_t)snprintf(s, 512, "%d.%0*d", rn(200000) - 100000, 1 + rn(4), rn(10000));
            if (rn(5) == 0) n1 = (size_t)snprintf(s, 512, "%d", rn(2000) - 1000);
        } else {
            n1 = gen_number(s);
            if (n1 > 400) continue;
        }
        if (rn(3)) n2 = (size_t)snprintf(s2, 512, "%s%d.%0*de%d", rn(2) ? "-" : "", rn(1000), 1 + rn(3), rn(1000), rn(12) - 6);
        else { n2 = gen_number(s2); if (n2 > 400) continue; }
        if (rn(50) == 0) n2 = (size_t)snprintf(s2, 512, "%s", rn(2) ? "1.1e4932" : "-1.1e4932");
        long double v, inc;
        const char *reply = buf;
        if (!r_string2ld(s, n1, &v) || !r_string2ld(s2, n2, &inc)) reply = "!float";
        else if (v += inc, isnan(v) || isinf(v)) reply = "!naninf";
        else if (r_ld2string(buf, LDCHARS, v, LD_HUMAN) > 100 && rn(10) != 0) continue;
        putq(f, s, n1); fputc('\t', f); putq(f, s2, n2); fprintf(f, "\t%s\n", reply);
    }
    fclose(f);
    return 0;
}
