// CPNG fast encoder: PNG written without libpng or zlib, for thumbnails (CPNG.h,
// rtn_png_encode_fast). Errors come back as status codes; there is no setjmp here.
//
// Shaped for filtered image rows, in the spirit of fpnge and fpng (nothing copied from them):
// - each row is filtered by rtn_png_filter_row (libpng's per-row choice among the five filters
//   by the smallest sum of absolute residuals, vectorized, on both dispatch paths of kernels.c),
//   so the filtered bytes are the zlib path's;
// - the deflate stream matches only runs: a byte repeating the byte before (distance 1, a flat
//   area after Sub or Up) or the pixel before (distance = bytes per pixel, a constant gradient),
//   found 16 positions at a time with vector compares; everything else is a literal;
// - each block of about 128 KiB of rows is coded with a Huffman table built from its own
//   symbol counts (a dynamic block), or fixed codes, or stored, whichever is smallest by exact
//   count; so a block never takes more than its bytes plus 5 a 64 KiB;
// - the zlib Adler-32 and the chunks' CRC-32 are libdeflate's (which uses PCLMUL and AVX2 where
//   the CPU has them).
#include "CPNG.h"
#include "internal.h"

#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

enum {
    // Filtered bytes per deflate block (at least one row).
    RTN_FAST_BLOCK = 1 << 17,
    // The shortest run coded as a match: shorter repeats cost less as literals.
    RTN_FAST_MIN_RUN = 5,
    RTN_FAST_MAX_MATCH = 258,
    // Bytes readable past a block's end (vector loads), and kept before its start (matches
    // reach back at most 4 bytes, into the block before).
    RTN_FAST_PAD = 64,
    RTN_FAST_BACK = 8,
};

typedef uint8_t rtn_fast_v16 __attribute__((vector_size(16), aligned(1)));

// One match: `length` bytes at `position` (in the block) repeat those `distance` before.
typedef struct {
    uint32_t position;
    uint16_t length;
    uint16_t distance;
} rtn_fast_match;

// A Huffman code: length in bits and the bits, reversed for deflate's LSB-first order.
typedef struct {
    uint8_t lengths[288];
    uint16_t codes[288];
} rtn_fast_code;

// Length symbols: for each match length 3–258, its symbol (257–285) and extra bits.
typedef struct {
    uint16_t symbol[RTN_FAST_MAX_MATCH + 1];
    uint8_t extra_bits[RTN_FAST_MAX_MATCH + 1];
    uint16_t extra_value[RTN_FAST_MAX_MATCH + 1];
} rtn_fast_lengths;

// The bit writer: bits collected LSB first in `bits`, 8 bytes stored at a time (the output has
// 8 bytes of slack past what is written).
typedef struct {
    uint8_t *out;
    size_t size;
    uint64_t bits;
    unsigned count;
} rtn_fast_bits;

static inline void rtn_fast_put(rtn_fast_bits *w, uint64_t value, unsigned count) {
    w->bits |= value << w->count;
    w->count += count;
    if (w->count >= 32) {
        memcpy(w->out + w->size, &w->bits, 8);  // little-endian hosts only (x86-64, aarch64)
        unsigned bytes = w->count >> 3;
        w->size += bytes;
        w->bits >>= bytes * 8;
        w->count -= bytes * 8;
    }
}

static void rtn_fast_flush_bits(rtn_fast_bits *w) {
    while (w->count > 0) {
        w->out[w->size++] = (uint8_t)w->bits;
        w->bits >>= 8;
        w->count = w->count > 8 ? w->count - 8 : 0;
    }
    w->bits = 0;
}

static void rtn_fast_length_table(rtn_fast_lengths *t) {
    static const uint16_t base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (int s = 0; s < 29; s++) {
        int end = s == 28 ? 259 : base[s] + (1 << extra[s]);
        if (s == 27) end = 258;  // 258 has its own symbol, 285
        for (int len = base[s]; len < end; len++) {
            t->symbol[len] = (uint16_t)(257 + s);
            t->extra_bits[len] = extra[s];
            t->extra_value[len] = (uint16_t)(len - base[s]);
        }
    }
}

// Code lengths of at most `limit` bits for `count` symbols from their frequencies (Huffman's
// construction with two queues over the symbols sorted by frequency). When the tree is too
// deep, the frequencies are halved (none below 1) and it is built again. Symbols of frequency
// 0 get length 0; the caller gives at least two symbols a frequency.
static void rtn_fast_huffman(const uint32_t *frequencies, int count, int limit, uint8_t *lengths) {
    uint32_t freq[288];
    uint64_t sorted[288];
    uint32_t weight[576];
    int parent[576];
    int depth[576];
    memcpy(freq, frequencies, (size_t)count * sizeof freq[0]);
    for (;;) {
        int n = 0;
        for (int s = 0; s < count; s++) {
            lengths[s] = 0;
            if (freq[s] > 0) sorted[n++] = (uint64_t)freq[s] << 16 | (uint64_t)s;
        }
        // Insertion sort: at most 288 entries, mostly a few dozen.
        for (int i = 1; i < n; i++) {
            uint64_t key = sorted[i];
            int j = i - 1;
            while (j >= 0 && sorted[j] > key) {
                sorted[j + 1] = sorted[j];
                j--;
            }
            sorted[j + 1] = key;
        }
        if (n == 1) {
            lengths[sorted[0] & 0xffff] = 1;
            return;
        }
        for (int i = 0; i < n; i++) weight[i] = (uint32_t)(sorted[i] >> 16);
        int leaf = 0, node = n, next = n;  // leaves taken, internal nodes taken, internal made
        while (next < 2 * n - 1) {
            int pick[2];
            for (int k = 0; k < 2; k++) {
                if (leaf < n && (node >= next || weight[leaf] <= weight[node])) {
                    pick[k] = leaf++;
                } else {
                    pick[k] = node++;
                }
            }
            weight[next] = weight[pick[0]] + weight[pick[1]];
            parent[pick[0]] = next;
            parent[pick[1]] = next;
            next++;
        }
        int root = 2 * n - 2, deepest = 0;
        depth[root] = 0;
        for (int i = root - 1; i >= 0; i--) {
            depth[i] = depth[parent[i]] + 1;
            if (i < n && depth[i] > deepest) deepest = depth[i];
        }
        if (deepest <= limit) {
            for (int i = 0; i < n; i++) lengths[sorted[i] & 0xffff] = (uint8_t)depth[i];
            return;
        }
        for (int s = 0; s < count; s++) {
            if (freq[s] > 0) freq[s] = (freq[s] >> 1) | 1;
        }
    }
}

// Canonical codes (RFC 1951, 3.2.2) from lengths, bit-reversed for LSB-first output.
static void rtn_fast_codes(rtn_fast_code *code, int count) {
    uint16_t per_length[16] = {0}, next[16] = {0};
    for (int s = 0; s < count; s++) per_length[code->lengths[s]]++;
    per_length[0] = 0;
    uint16_t value = 0;
    for (int bits = 1; bits < 16; bits++) {
        value = (uint16_t)((value + per_length[bits - 1]) << 1);
        next[bits] = value;
    }
    for (int s = 0; s < count; s++) {
        int len = code->lengths[s];
        if (len == 0) {
            code->codes[s] = 0;
            continue;
        }
        uint16_t c = next[len]++, reversed = 0;
        for (int b = 0; b < len; b++) reversed = (uint16_t)(reversed << 1 | ((c >> b) & 1));
        code->codes[s] = reversed;
    }
}

// A block's symbols: literal/length and distance counts.
typedef struct {
    uint32_t litlen[286];
    uint32_t distance[30];
} rtn_fast_counts;

// The code-length sequence of a dynamic header, run-length coded with symbols 16, 17 and 18.
typedef struct {
    uint8_t symbols[286 + 30];
    uint8_t extra[286 + 30];
    int count;
    int hlit, hdist, hclen;
    rtn_fast_code code;  // the code-length code (19 symbols)
} rtn_fast_header;

static const uint8_t rtn_fast_header_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

// Builds the header for `litlen` and `dist` and returns its size in bits.
static size_t rtn_fast_build_header(rtn_fast_header *h, const rtn_fast_code *litlen, const rtn_fast_code *dist) {
    uint8_t all[286 + 30];
    h->hlit = 286;
    while (h->hlit > 257 && litlen->lengths[h->hlit - 1] == 0) h->hlit--;
    h->hdist = 30;
    while (h->hdist > 1 && dist->lengths[h->hdist - 1] == 0) h->hdist--;
    memcpy(all, litlen->lengths, (size_t)h->hlit);
    memcpy(all + h->hlit, dist->lengths, (size_t)h->hdist);
    int total = h->hlit + h->hdist;
    uint32_t freq[19] = {0};
    h->count = 0;
    for (int i = 0; i < total;) {
        int len = all[i], run = 1;
        while (i + run < total && all[i + run] == len) run++;
        i += run;
        if (len == 0) {
            while (run >= 11) {
                int take = run > 138 ? 138 : run;
                h->symbols[h->count] = 18, h->extra[h->count++] = (uint8_t)(take - 11);
                run -= take;
            }
            if (run >= 3) {
                h->symbols[h->count] = 17, h->extra[h->count++] = (uint8_t)(run - 3);
                run = 0;
            }
        } else {
            h->symbols[h->count] = (uint8_t)len, h->extra[h->count++] = 0;
            run--;
            while (run >= 3) {
                int take = run > 6 ? 6 : run;
                h->symbols[h->count] = 16, h->extra[h->count++] = (uint8_t)(take - 3);
                run -= take;
            }
        }
        while (run-- > 0) h->symbols[h->count] = (uint8_t)len, h->extra[h->count++] = 0;
    }
    for (int i = 0; i < h->count; i++) freq[h->symbols[i]]++;
    // Two symbols at least, so the code is complete.
    int used = 0;
    for (int s = 0; s < 19; s++) used += freq[s] > 0;
    for (int s = 0; used < 2 && s < 19; s++) {
        if (freq[s] == 0) freq[s] = 1, used++;
    }
    rtn_fast_huffman(freq, 19, 7, h->code.lengths);
    rtn_fast_codes(&h->code, 19);
    h->hclen = 19;
    while (h->hclen > 4 && h->code.lengths[rtn_fast_header_order[h->hclen - 1]] == 0) h->hclen--;
    size_t bits = 5 + 5 + 4 + 3 * (size_t)h->hclen;
    for (int i = 0; i < h->count; i++) {
        int s = h->symbols[i];
        bits += h->code.lengths[s] + (s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0);
    }
    return bits;
}

static void rtn_fast_write_header(rtn_fast_bits *w, const rtn_fast_header *h) {
    rtn_fast_put(w, (uint64_t)(h->hlit - 257), 5);
    rtn_fast_put(w, (uint64_t)(h->hdist - 1), 5);
    rtn_fast_put(w, (uint64_t)(h->hclen - 4), 4);
    for (int i = 0; i < h->hclen; i++) rtn_fast_put(w, h->code.lengths[rtn_fast_header_order[i]], 3);
    for (int i = 0; i < h->count; i++) {
        int s = h->symbols[i];
        rtn_fast_put(w, h->code.codes[s], h->code.lengths[s]);
        if (s == 16) rtn_fast_put(w, h->extra[i], 2);
        if (s == 17) rtn_fast_put(w, h->extra[i], 3);
        if (s == 18) rtn_fast_put(w, h->extra[i], 7);
    }
}

// The bits the block's symbols take under `litlen` and `dist` (header and EOB aside).
static size_t rtn_fast_cost(const rtn_fast_counts *counts, const rtn_fast_code *litlen, const rtn_fast_code *dist) {
    static const uint8_t extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    size_t bits = 0;
    for (int s = 0; s < 286; s++) {
        bits += (size_t)counts->litlen[s] * (litlen->lengths[s] + (s >= 257 ? extra[s - 257] : 0));
    }
    for (int s = 0; s < 30; s++) bits += (size_t)counts->distance[s] * dist->lengths[s];
    return bits;
}

static void rtn_fast_fixed(rtn_fast_code *litlen, rtn_fast_code *dist) {
    for (int s = 0; s < 288; s++) litlen->lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    rtn_fast_codes(litlen, 288);
    memset(dist->lengths, 0, sizeof dist->lengths);
    for (int s = 0; s < 30; s++) dist->lengths[s] = 5;
    rtn_fast_codes(dist, 30);
}

// How many bytes from p[0] repeat those `distance` before, up to `limit`; 8 bytes at a time
// (p may read up to 8 bytes past `limit`).
static inline size_t rtn_fast_run(const uint8_t *p, size_t distance, size_t limit) {
    size_t n = 0;
    while (n < limit) {
        uint64_t a, b;
        memcpy(&a, p + n, 8);
        memcpy(&b, p + n - distance, 8);
        uint64_t diff = a ^ b;
        if (diff != 0) {
            n += (size_t)__builtin_ctzll(diff) >> 3;
            break;
        }
        n += 8;
    }
    return n < limit ? n : limit;
}

// 32 bits, bit k set when p[k] == p[k - distance].
static inline uint32_t rtn_fast_equal_mask(const uint8_t *p, size_t distance) {
    rtn_fast_v16 a0, a1, b0, b1;
    memcpy(&a0, p, 16);
    memcpy(&a1, p + 16, 16);
    memcpy(&b0, p - distance, 16);
    memcpy(&b1, p + 16 - distance, 16);
    rtn_fast_v16 e0 = (rtn_fast_v16)(a0 == b0), e1 = (rtn_fast_v16)(a1 == b1);
    uint32_t mask = 0;
#if defined(__SSE2__)
    typedef char rtn_fast_c16 __attribute__((vector_size(16)));
    mask = (uint32_t)__builtin_ia32_pmovmskb128((rtn_fast_c16)e0) |
           (uint32_t)__builtin_ia32_pmovmskb128((rtn_fast_c16)e1) << 16;
#else
    for (int k = 0; k < 16; k++) mask |= (uint32_t)(e0[k] & 1) << k | (uint32_t)(e1[k] & 1) << (k + 16);
#endif
    return mask;
}

// Bits k where RTN_FAST_MIN_RUN bytes from k all match.
static inline uint32_t rtn_fast_run_starts(uint32_t mask) {
    uint32_t starts = mask;
    for (int k = 1; k < RTN_FAST_MIN_RUN; k++) starts &= mask >> k;
    return starts;
}

// Counts bytes into four tables in turn, so repeated bytes (filtered rows are full of 0, 1 and
// 255) do not wait on one counter's previous increment; the caller adds the four up.
static inline void rtn_fast_count_literals(uint32_t (*tables)[256], const uint8_t *p, size_t from, size_t to) {
    size_t j = from;
    for (; j + 4 <= to; j += 4) {
        tables[0][p[j]]++;
        tables[1][p[j + 1]]++;
        tables[2][p[j + 2]]++;
        tables[3][p[j + 3]]++;
    }
    for (; j < to; j++) tables[0][p[j]]++;
}

// Finds the matches of block `p[0..<n]` (p[-back..<0] readable: the block before) and counts
// every symbol. Returns the number of matches written to `matches`.
static size_t rtn_fast_scan(const uint8_t *p, size_t n, size_t back, size_t bpp, rtn_fast_match *matches,
                            rtn_fast_counts *counts, const rtn_fast_lengths *lt) {
    size_t found = 0, literal = 0, i = 0;
    uint32_t *hist = counts->litlen;
    uint32_t tables[4][256];
    memset(tables, 0, sizeof tables);
    size_t far = bpp > 1 ? bpp : 0;  // the second distance, if any
    while (i < n) {
        size_t at = n, distance = 0;
        if (i + back >= 4 && i + 16 + RTN_FAST_MIN_RUN <= n) {
            uint32_t s1 = rtn_fast_run_starts(rtn_fast_equal_mask(p + i, 1)) & 0xffff;
            uint32_t sb = far ? rtn_fast_run_starts(rtn_fast_equal_mask(p + i, far)) & 0xffff : 0;
            if ((s1 | sb) == 0) {
                i += 16;
                continue;
            }
            size_t k = (size_t)__builtin_ctz(s1 | sb);
            at = i + k;
            distance = (s1 >> k) & 1 ? 1 : far;
        } else {
            // Near the block's ends: one position at a time.
            for (; i + RTN_FAST_MIN_RUN <= n; i++) {
                if (i + back >= 1 && memcmp(p + i, p + i - 1, RTN_FAST_MIN_RUN) == 0) {
                    distance = 1;
                } else if (far && i + back >= far && memcmp(p + i, p + i - far, RTN_FAST_MIN_RUN) == 0) {
                    distance = far;
                } else {
                    if (i + back >= 4 && i + 16 + RTN_FAST_MIN_RUN <= n) break;  // back to 16 at a time
                    continue;
                }
                at = i;
                break;
            }
            if (distance == 0) {
                if (i + RTN_FAST_MIN_RUN > n) i = n;
                continue;
            }
        }
        size_t limit = n - at < RTN_FAST_MAX_MATCH ? n - at : RTN_FAST_MAX_MATCH;
        size_t length = rtn_fast_run(p + at, distance, limit);
        if (distance == 1 && far && at + back >= far) {
            size_t other = rtn_fast_run(p + at, far, limit);
            if (other > length) length = other, distance = far;
        } else if (distance == far && at + back >= 1) {
            size_t other = rtn_fast_run(p + at, 1, limit);
            if (other >= length) length = other, distance = 1;
        }
        rtn_fast_count_literals(tables, p, literal, at);
        matches[found].position = (uint32_t)at;
        matches[found].length = (uint16_t)length;
        matches[found].distance = (uint16_t)distance;
        found++;
        hist[lt->symbol[length]]++;
        counts->distance[distance - 1]++;
        i = literal = at + length;
    }
    rtn_fast_count_literals(tables, p, literal, n);
    for (int v = 0; v < 256; v++) hist[v] += tables[0][v] + tables[1][v] + tables[2][v] + tables[3][v];
    // The end of the block, and a terminator after the last match.
    matches[found].position = (uint32_t)n;
    matches[found].length = 0;
    matches[found].distance = 0;
    return found;
}

static void rtn_fast_write_symbols(rtn_fast_bits *w, const uint8_t *p, const rtn_fast_match *matches, size_t found,
                                   const rtn_fast_code *litlen, const rtn_fast_code *dist, const rtn_fast_lengths *lt) {
    // A literal's code and length in one word (code << 8 | length), so three literals (at most
    // 45 bits) go into the bit buffer between two stores, with no branch.
    uint32_t table[256];
    for (int s = 0; s < 256; s++) table[s] = (uint32_t)litlen->codes[s] << 8 | litlen->lengths[s];
    size_t literal = 0;
    for (size_t m = 0; m <= found; m++) {
        size_t at = matches[m].position, j = literal;
        if (at - j >= 3) {
            uint64_t bits = w->bits;
            unsigned count = w->count;
            uint8_t *out = w->out + w->size;
            // Down to fewer than 8 bits pending first, so 45 more never overflow.
            memcpy(out, &bits, 8);
            out += count >> 3;
            bits >>= count & ~7u;
            count &= 7;
            for (; j + 3 <= at; j += 3) {
                uint32_t e0 = table[p[j]], e1 = table[p[j + 1]], e2 = table[p[j + 2]];
                bits |= (uint64_t)(e0 >> 8) << count;
                count += e0 & 0xff;
                bits |= (uint64_t)(e1 >> 8) << count;
                count += e1 & 0xff;
                bits |= (uint64_t)(e2 >> 8) << count;
                count += e2 & 0xff;
                memcpy(out, &bits, 8);
                out += count >> 3;
                bits >>= count & ~7u;
                count &= 7;
            }
            w->bits = bits;
            w->count = count;
            w->size = (size_t)(out - w->out);
        }
        for (; j < at; j++) rtn_fast_put(w, table[p[j]] >> 8, table[p[j]] & 0xff);
        if (m == found) break;
        size_t length = matches[m].length;
        int symbol = lt->symbol[length];
        rtn_fast_put(w, litlen->codes[symbol], litlen->lengths[symbol]);
        rtn_fast_put(w, lt->extra_value[length], lt->extra_bits[length]);
        int d = matches[m].distance - 1;
        rtn_fast_put(w, dist->codes[d], dist->lengths[d]);
        literal = at + length;
    }
    rtn_fast_put(w, litlen->codes[256], litlen->lengths[256]);
}

// Compresses block `p[0..<n]` onto `w`: dynamic, fixed or stored, the smallest.
static void rtn_fast_block(rtn_fast_bits *w, const uint8_t *p, size_t n, size_t back, size_t bpp, int last,
                           rtn_fast_match *matches, const rtn_fast_lengths *lt) {
    rtn_fast_counts counts;
    memset(&counts, 0, sizeof counts);
    size_t found = rtn_fast_scan(p, n, back, bpp, matches, &counts, lt);
    counts.litlen[256] = 1;
    // Every tree gets two symbols at least, so each code is complete.
    if (counts.litlen[0] == 0) counts.litlen[0] = 1;
    if (counts.distance[0] == 0) counts.distance[0] = 1;
    if (counts.distance[1] == 0) counts.distance[1] = 1;
    rtn_fast_code litlen, dist, fixed_litlen, fixed_dist;
    memset(&litlen, 0, sizeof litlen);
    memset(&dist, 0, sizeof dist);
    rtn_fast_huffman(counts.litlen, 286, 15, litlen.lengths);
    rtn_fast_huffman(counts.distance, 30, 15, dist.lengths);
    rtn_fast_codes(&litlen, 286);
    rtn_fast_codes(&dist, 30);
    rtn_fast_header header;
    size_t dynamic_bits = 3 + rtn_fast_build_header(&header, &litlen, &dist) + rtn_fast_cost(&counts, &litlen, &dist);
    rtn_fast_fixed(&fixed_litlen, &fixed_dist);
    size_t fixed_bits = 3 + rtn_fast_cost(&counts, &fixed_litlen, &fixed_dist);
    // Stored: each piece of up to 65535 bytes takes its header (3 bits, padded to a byte) and
    // LEN, NLEN; counted as whole bytes, an upper bound.
    size_t pieces = n == 0 ? 1 : (n + 65534) / 65535;
    size_t stored_bits = 8 * (n + 5 * pieces);
    if (stored_bits < dynamic_bits && stored_bits < fixed_bits) {
        size_t done = 0;
        for (size_t k = 0; k < pieces; k++) {
            size_t take = n - done > 65535 ? 65535 : n - done;
            rtn_fast_put(w, (uint64_t)(last && k == pieces - 1), 3);
            rtn_fast_flush_bits(w);
            uint8_t *q = w->out + w->size;
            q[0] = (uint8_t)take, q[1] = (uint8_t)(take >> 8);
            q[2] = (uint8_t)~take, q[3] = (uint8_t)(~take >> 8);
            memcpy(q + 4, p + done, take);
            w->size += 4 + take;
            done += take;
        }
        return;
    }
    if (fixed_bits <= dynamic_bits) {
        rtn_fast_put(w, (uint64_t)(last | 2), 3);
        rtn_fast_write_symbols(w, p, matches, found, &fixed_litlen, &fixed_dist, lt);
    } else {
        rtn_fast_put(w, (uint64_t)(last | 4), 3);
        rtn_fast_write_header(w, &header);
        rtn_fast_write_symbols(w, p, matches, found, &litlen, &dist, lt);
    }
}

static void rtn_fast_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

// Writes a chunk (length, type, data, CRC) at `out`; returns the bytes written.
static size_t rtn_fast_chunk(uint8_t *out, const char *type, const uint8_t *data, size_t length) {
    rtn_fast_be32(out, (uint32_t)length);
    memcpy(out + 4, type, 4);
    if (length > 0) memcpy(out + 8, data, length);
    rtn_fast_be32(out + 8 + length, libdeflate_crc32(0, out + 4, length + 4));
    return 12 + length;
}

// Buffers owned by one encode, freed together.
typedef struct {
    uint8_t *rows;     // the row above and the current row without its filler
    uint8_t *block;    // RTN_FAST_BACK + block + RTN_FAST_PAD bytes of filtered rows
    rtn_fast_match *matches;
    uint8_t *stream;   // the zlib stream
} rtn_fast_buffers;

static void rtn_fast_free(rtn_fast_buffers *b) {
    free(b->rows);
    free(b->block);
    free(b->matches);
    free(b->stream);
}

static rtn_png_status rtn_fast_fail(rtn_fast_buffers *b, rtn_png_error *err, rtn_png_status status, const char *message) {
    rtn_fast_free(b);
    rtn_set_error(err, status, status == RTN_PNG_NO_MEMORY ? ENOMEM : 0, message);
    return status;
}

rtn_png_status rtn_png_encode_fast(const rtn_png_encode_params *p, uint8_t **out, size_t *out_size,
                                   rtn_png_error *err) {
    rtn_fast_buffers b = {NULL, NULL, NULL, NULL};
    if (p == NULL || p->pixels == NULL || out == NULL || out_size == NULL || p->width == 0 || p->height == 0 ||
        p->width > 0x7fffffffu || p->height > 0x7fffffffu || p->bit_depth != 8 || p->interlaced ||
        rtn_png_channels(p->color_type) == 0 ||
        p->filter < RTN_PNG_FILTER_NONE || p->filter > RTN_PNG_FILTER_ADAPTIVE ||
        (p->strip_filler && p->color_type != 2) ||
        (p->color_type == 3 && (p->palette == NULL || p->palette_count < 1 || p->palette_count > 256)) ||
        (p->color_type == 3 && p->trns_count > p->palette_count) || p->trns_count < 0 || p->trns_count > 256) {
        return rtn_fast_fail(&b, err, RTN_PNG_USAGE, "bad fast encode arguments (8-bit, not interlaced)");
    }
    *out = NULL;
    *out_size = 0;
    size_t bpp = rtn_png_channels(p->color_type), length = (size_t)p->width * bpp;
    if (length > (size_t)RTN_FAST_BLOCK * 1024) {
        return rtn_fast_fail(&b, err, RTN_PNG_USAGE, "rows too long for the fast encoder");
    }
    unsigned allowed = rtn_png_allowed_filters(p);
    size_t row_bytes = length + 1;
    size_t rows_per_block = RTN_FAST_BLOCK / row_bytes;
    if (rows_per_block == 0) rows_per_block = 1;
    size_t block_cap = rows_per_block * row_bytes;
    b.rows = calloc(2 * length, 1);
    b.block = calloc(RTN_FAST_BACK + block_cap + RTN_FAST_PAD, 1);
    b.matches = malloc((block_cap / RTN_FAST_MIN_RUN + 2) * sizeof *b.matches);
    size_t total = row_bytes * (size_t)p->height;
    // The stream never takes more than the stored size: 2 header bytes, 5 a piece, the Adler-32,
    // and a byte of padding a block, plus the bit writer's 8 bytes of slack.
    size_t blocks = ((size_t)p->height + rows_per_block - 1) / rows_per_block;
    size_t stream_cap = 2 + total + 5 * (total / 65535 + 2 * blocks + 1) + 4 + 16;
    b.stream = malloc(stream_cap);
    if (b.rows == NULL || b.block == NULL || b.matches == NULL || b.stream == NULL) {
        return rtn_fast_fail(&b, err, RTN_PNG_NO_MEMORY, "out of memory");
    }
    rtn_fast_lengths lt;
    rtn_fast_length_table(&lt);
    rtn_fast_bits w = {b.stream, 0, 0, 0};
    // zlib header: deflate, 32 KiB window, no dictionary, the check bits.
    b.stream[0] = 0x78, b.stream[1] = 0x01;
    w.size = 2;
    uint32_t adler = 1;
    uint8_t *above = b.rows, *packed = b.rows + length, *data = b.block + RTN_FAST_BACK;
    const uint8_t *prev = NULL;
    size_t filled = 0, written = 0;
    for (uint32_t y = 0; y < p->height; y++) {
        const uint8_t *row = rtn_png_source_row(p, y, prev, above, packed);
        rtn_png_filter_row(row, prev != NULL ? prev : above, length, bpp, allowed, data + filled);
        prev = row;
        filled += row_bytes;
        if (filled + row_bytes > block_cap || y + 1 == p->height) {
            adler = libdeflate_adler32(adler, data, filled);
            size_t back = written < RTN_FAST_BACK ? written : RTN_FAST_BACK;
            memset(data + filled, 0, RTN_FAST_PAD);
            rtn_fast_block(&w, data, filled, back, bpp, y + 1 == p->height, b.matches, &lt);
            written += filled;
            memmove(b.block, data + filled - RTN_FAST_BACK, RTN_FAST_BACK);  // may overlap: a block under 8 bytes
            filled = 0;
        }
    }
    rtn_fast_flush_bits(&w);
    rtn_fast_be32(b.stream + w.size, adler);
    w.size += 4;
    // The file: signature, IHDR, PLTE and tRNS when given, the stream in IDAT chunks of at most
    // 1 GiB, IEND.
    const size_t idat_max = (size_t)1 << 30;
    size_t idats = (w.size + idat_max - 1) / idat_max;
    size_t size = 8 + 25 + (p->color_type == 3 ? 12 + 3 * (size_t)p->palette_count : 0) + 12 + 256 + 12 * idats + w.size + 12;
    uint8_t *file = malloc(size);
    if (file == NULL) return rtn_fast_fail(&b, err, RTN_PNG_NO_MEMORY, "out of memory");
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    memcpy(file, signature, 8);
    size_t at = 8;
    uint8_t ihdr[13];
    rtn_fast_be32(ihdr, p->width);
    rtn_fast_be32(ihdr + 4, p->height);
    ihdr[8] = 8, ihdr[9] = (uint8_t)p->color_type, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0;
    at += rtn_fast_chunk(file + at, "IHDR", ihdr, 13);
    if (p->color_type == 3) {
        at += rtn_fast_chunk(file + at, "PLTE", p->palette, 3 * (size_t)p->palette_count);
        if (p->trns_alpha != NULL && p->trns_count > 0) {
            at += rtn_fast_chunk(file + at, "tRNS", p->trns_alpha, (size_t)p->trns_count);
        }
    } else if ((p->color_type == 0 || p->color_type == 2) && p->trns_count > 0) {
        uint8_t key[6];
        int keys = p->color_type == 0 ? 1 : 3;
        for (int k = 0; k < keys; k++) key[2 * k] = (uint8_t)(p->trns_color[k] >> 8), key[2 * k + 1] = (uint8_t)p->trns_color[k];
        at += rtn_fast_chunk(file + at, "tRNS", key, 2 * (size_t)keys);
    }
    for (size_t done = 0; done < w.size;) {
        size_t take = w.size - done < idat_max ? w.size - done : idat_max;
        at += rtn_fast_chunk(file + at, "IDAT", b.stream + done, take);
        done += take;
    }
    at += rtn_fast_chunk(file + at, "IEND", NULL, 0);
    rtn_fast_free(&b);
    *out = file;
    *out_size = at;
    return RTN_PNG_OK;
}
