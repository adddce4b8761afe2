/* The native search core: the tree walk of rules/engine/search.py in C.
 *
 * The same algorithm as the Python closure Engine._make_negamax builds, node for node:
 * the same move generation (capture routes one by one, quiet steps), the same ordering
 * (the table's move, captures, killers, history), the same late move reductions,
 * threats at the horizon, repetitions, 40-move rule, mate-distance bounds and endgame
 * table scoring, and the same evaluation (weights handed over by rules/engine/search.py
 * from rules/engine/evaluation.py, so there is one source for them). At a fixed depth or
 * node budget both give the same move, score and node count; the tests hold them to it.
 *
 * What stays in Python: the root (iterative deepening, the root moves, the levels), the
 * endgame tables' files (their blocks read and inflated by firmware/egdb, handed over
 * here block by block: the probe itself, index and capture recursion, is in C below,
 * the port of rules.engine.egdb.EndgameTables.value; another probe is called back), and
 * the clock (read every CHECK_EVERY nodes through the callable given).
 *
 * Bitboards: bit s - 1 for square s, Black moving towards the higher squares.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;

#define FULL 0xFFFFFFFFu
#define EVEN_ROWS 0x0F0F0F0Fu
#define ODD_ROWS 0xF0F0F0F0u
#define EVEN_NOT_H 0x07070707u
#define ODD_NOT_A 0xE0E0E0E0u
#define BLACK_CROWN_ROW 0xF0000000u
#define WHITE_CROWN_ROW 0x0000000Fu

#define WIN 10000
#define WIN_THRESHOLD (WIN - 1000)
#define INFINITY_SCORE (WIN + 1)
#define MAX_PLY 256
#define CHECK_MASK 127
#define LATE_MOVES 3
#define FORTY_MOVES_PLIES 80
#define TABLE_WIN 8000
#define PROGRESS_CAP 900
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define MAX_MOVES 256
#define PATH_MAX_KEYS (MAX_PLY + 8)

static inline int popcount(u32 x) { return __builtin_popcount(x); }
static inline int bit_index(u32 x) { return __builtin_ctz(x); } /* square - 1 */

/* -- geometry -------------------------------------------------------------------------- */

typedef struct {
    u32 over, land;
    int land_square; /* 1-32 */
} Jump;

typedef struct {
    int count;
    Jump jumps[4];
} JumpList;

static JumpList king_jumps[33], black_man_jumps[33], white_man_jumps[33];
static int row_of[33], file_of[33];
static int square_at[8][8]; /* [row][file] -> square or 0 */
static int dist[33][33];
static u32 black_cone[33], white_cone[33];
static u64 zobrist_man[2][33], zobrist_king[2][33], zobrist_side;

static void init_geometry(void) {
    memset(square_at, 0, sizeof square_at);
    for (int s = 1; s <= 32; s++) {
        int r = (s - 1) >> 2, i = (s - 1) & 3;
        row_of[s] = r;
        file_of[s] = r % 2 == 0 ? 2 * i + 1 : 2 * i;
        square_at[r][file_of[s]] = s;
    }
    /* Directions as (row step, file step): the two towards higher rows are Black's men's. */
    static const int dr[4] = {1, 1, -1, -1}, df[4] = {-1, 1, -1, 1};
    for (int s = 1; s <= 32; s++) {
        king_jumps[s].count = black_man_jumps[s].count = white_man_jumps[s].count = 0;
        for (int d = 0; d < 4; d++) {
            int r1 = row_of[s] + dr[d], f1 = file_of[s] + df[d];
            int r2 = row_of[s] + 2 * dr[d], f2 = file_of[s] + 2 * df[d];
            if (r2 < 0 || r2 > 7 || f2 < 0 || f2 > 7) continue;
            int over = square_at[r1][f1], land = square_at[r2][f2];
            Jump j = {1u << (over - 1), 1u << (land - 1), land};
            king_jumps[s].jumps[king_jumps[s].count++] = j;
            if (dr[d] > 0)
                black_man_jumps[s].jumps[black_man_jumps[s].count++] = j;
            else
                white_man_jumps[s].jumps[white_man_jumps[s].count++] = j;
        }
    }
    for (int a = 0; a <= 32; a++)
        for (int b = 0; b <= 32; b++) {
            if (a == 0 || b == 0) {
                dist[a][b] = 0;
                continue;
            }
            int x = abs(file_of[a] - file_of[b]), y = abs(row_of[a] - row_of[b]);
            dist[a][b] = x > y ? x : y;
        }
    for (int s = 1; s <= 32; s++) {
        u32 bc = 0, wc = 0;
        for (int t = 1; t <= 32; t++) {
            int ahead_b = row_of[t] - row_of[s], ahead_w = row_of[s] - row_of[t];
            int df_ = abs(file_of[t] - file_of[s]);
            if (ahead_b > 0 && df_ <= ahead_b) bc |= 1u << (t - 1);
            if (ahead_w > 0 && df_ <= ahead_w) wc |= 1u << (t - 1);
        }
        black_cone[s] = bc;
        white_cone[s] = wc;
    }
}

/* -- the evaluation's weights (set from rules/engine/evaluation.py) ------------------- */

typedef struct {
    int man_value, king_value, trade_bonus, mobility, the_move, drive, double_corner;
    int trapped_king, ending_move, bridge;
    /* Per phase and square, from Black's side: a White piece on s is valued as a Black
     * one on 33 - s. */
    int black_men[3][33], white_men[3][33], black_kings[3][33], white_kings[3][33];
    int black_runaway[33], white_runaway[33];
} Weights;

static Weights W;
static int weights_set = 0;

/* Two-row patterns: the men of each pair of rows (eight squares, 3**8 arrangements) by
 * phase and pair, counted from a side's own back rows (a Black man on a square, a White
 * one, or neither: digit 1, 2 or 0 of a base-3 index). White's pattern is read on the
 * board turned round: its pair k is Black's pair 3 - k, each byte's bits reversed. */
#define PATTERN_SIZE 6561
static int16_t patterns[3][4][PATTERN_SIZE];
/* Whether any pattern weighs anything: none ship, and their 16 lookups a position in
 * 157 KB of tables would cost every evaluation for nothing. */
static int patterns_on = 0;
static uint16_t ternary[256], ternary_reversed[256];

static void init_patterns(void) {
    for (int byte = 0; byte < 256; byte++) {
        int t = 0, r = 0, power = 1;
        for (int j = 0; j < 8; j++, power *= 3) {
            if (byte >> j & 1) t += power;
            if (byte >> (7 - j) & 1) r += power;
        }
        ternary[byte] = (uint16_t)t;
        ternary_reversed[byte] = (uint16_t)r;
    }
}

static inline int pattern_term(int phase, u32 bm, u32 wm) {
    const int16_t *p0 = patterns[phase][0], *p1 = patterns[phase][1], *p2 = patterns[phase][2],
                  *p3 = patterns[phase][3];
    int score = p0[ternary[bm & 255] + 2 * ternary[wm & 255]] + p1[ternary[bm >> 8 & 255] + 2 * ternary[wm >> 8 & 255]] +
                p2[ternary[bm >> 16 & 255] + 2 * ternary[wm >> 16 & 255]] + p3[ternary[bm >> 24] + 2 * ternary[wm >> 24]];
    score -= p0[ternary_reversed[wm >> 24] + 2 * ternary_reversed[bm >> 24]] +
             p1[ternary_reversed[wm >> 16 & 255] + 2 * ternary_reversed[bm >> 16 & 255]] +
             p2[ternary_reversed[wm >> 8 & 255] + 2 * ternary_reversed[bm >> 8 & 255]] +
             p3[ternary_reversed[wm & 255] + 2 * ternary_reversed[bm & 255]];
    return score;
}

#define BLACK_FAR_HALF 0xFFFFF000u
#define WHITE_FAR_HALF 0x000FFFFFu
#define DOUBLE_CORNERS ((1u << 0) | (1u << 4) | (1u << 27) | (1u << 31))
#define BLACK_BRIDGE ((1u << 0) | (1u << 2))
#define WHITE_BRIDGE ((1u << 29) | (1u << 31))

static inline int sum_squares(const int *table, u32 board) {
    int total = 0;
    while (board) {
        total += table[bit_index(board) + 1];
        board &= board - 1;
    }
    return total;
}

static inline int count_quiet(u32 own, u32 opp, u32 kings, int black) {
    u32 empty = ~(own | opp);
    u32 south = black ? own : own & kings;
    u32 north = black ? own & kings : own;
    int n = 0;
    if (south)
        n = popcount((((south & EVEN_ROWS) << 4) | ((south & ODD_NOT_A) << 3)) & empty) +
            popcount((((south & EVEN_NOT_H) << 5) | ((south & ODD_ROWS) << 4)) & empty);
    if (north)
        n += popcount((((north & EVEN_ROWS) >> 4) | ((north & ODD_NOT_A) >> 5)) & empty) +
             popcount((((north & EVEN_NOT_H) >> 3) | ((north & ODD_ROWS) >> 4)) & empty);
    return n;
}

static int drive_term(u32 strong_kings, u32 weak, u32 weak_kings) {
    int distance = 0;
    while (strong_kings) {
        int k = bit_index(strong_kings) + 1;
        strong_kings &= strong_kings - 1;
        int best = 1 << 30;
        u32 w = weak;
        while (w) {
            int s = bit_index(w) + 1;
            w &= w - 1;
            if (dist[k][s] < best) best = dist[k][s];
        }
        distance += best;
    }
    return -W.drive * distance - W.double_corner * popcount(weak_kings & DOUBLE_CORNERS);
}

static int bridge_black_view(u32 b, u32 w, u32 kings) {
    int score = 0;
    if ((b & ~kings & BLACK_BRIDGE) == BLACK_BRIDGE && (w & ~kings)) {
        int bk = popcount(b & kings);
        if (bk && bk >= popcount(w & kings)) score += W.bridge;
    }
    if ((w & ~kings & WHITE_BRIDGE) == WHITE_BRIDGE && (b & ~kings)) {
        int wk = popcount(w & kings);
        if (wk && wk >= popcount(b & kings)) score -= W.bridge;
    }
    return score;
}

static inline u64 ghost(u32 x) {
    return (u64)(x & 0xFF) | (u64)(x & 0xFF00) << 1 | (u64)(x & 0xFF0000) << 2 | (u64)(x & 0xFF000000u) << 3;
}

static int knowledge_black_view(u32 b32, u32 w32, u32 kings32, int black) {
    int score;
    if (black)
        score = popcount((b32 | w32) & EVEN_ROWS) & 1 ? W.ending_move : -W.ending_move;
    else
        score = popcount((b32 | w32) & ODD_ROWS) & 1 ? -W.ending_move : W.ending_move;
    if (!kings32) return score;
    score += bridge_black_view(b32, w32, kings32);
    u64 padded = ghost(FULL);
    u64 b = ghost(b32), w = ghost(w32), kings = ghost(kings32);
    u64 empty = padded & ~(b | w);
    u64 bk = b & kings, wk = w & kings;
    if (bk) {
        u64 hit = ((w >> 4) & (empty << 4)) | ((w >> 5) & (empty << 5));
        if (wk) hit |= ((wk << 4) & (empty >> 4)) | ((wk << 5) & (empty >> 5));
        u64 safe = empty & ~hit;
        score -= W.trapped_king * __builtin_popcountll(bk & ~((safe >> 4) | (safe >> 5) | (safe << 4) | (safe << 5)));
    }
    if (wk) {
        u64 hit = ((b << 4) & (empty >> 4)) | ((b << 5) & (empty >> 5));
        if (bk) hit |= ((bk >> 4) & (empty << 4)) | ((bk >> 5) & (empty << 5));
        u64 safe = empty & ~hit;
        score += W.trapped_king * __builtin_popcountll(wk & ~((safe >> 4) | (safe >> 5) | (safe << 4) | (safe << 5)));
    }
    return score;
}

static int evaluate(u32 own, u32 opp, u32 kings, int black, int own_mobility) {
    u32 b = black ? own : opp, w = black ? opp : own;
    u32 bm = b & ~kings, bk = b & kings, wm = w & ~kings, wk = w & kings;
    int nbk = popcount(bk), nwk = popcount(wk), nb = popcount(b), nw = popcount(w);
    int mat_b = W.man_value * (nb - nbk) + W.king_value * nbk;
    int mat_w = W.man_value * (nw - nwk) + W.king_value * nwk;
    int score = mat_b - mat_w;
    if (score) {
        int bonus = abs(score) * W.trade_bonus / (mat_b + mat_w);
        score += score > 0 ? bonus : -bonus;
    }
    int phase = nb + nw > 16 ? 0 : (nb + nw > 8 ? 1 : 2);
    score += sum_squares(W.black_men[phase], bm) - sum_squares(W.white_men[phase], wm);
    if (bk) score += sum_squares(W.black_kings[phase], bk);
    if (wk) score -= sum_squares(W.white_kings[phase], wk);
    if (patterns_on) score += pattern_term(phase, bm, wm);
    if (!wk && bm) {
        u32 c = bm & BLACK_FAR_HALF;
        while (c) {
            int s = bit_index(c) + 1;
            c &= c - 1;
            if (!(black_cone[s] & wm)) score += W.black_runaway[s];
        }
    }
    if (!bk && wm) {
        u32 c = wm & WHITE_FAR_HALF;
        while (c) {
            int s = bit_index(c) + 1;
            c &= c - 1;
            if (!(white_cone[s] & bm)) score -= W.white_runaway[s];
        }
    }
    int opp_mobility = count_quiet(opp, own, kings, !black);
    int mobility = W.mobility * (own_mobility - opp_mobility);
    score += black ? mobility : -mobility;
    if (phase == 2) {
        score += knowledge_black_view(b, w, kings, black);
        if (mat_b == mat_w) {
            int has_move = black ? popcount((b | w) & EVEN_ROWS) & 1 : popcount((b | w) & ODD_ROWS) & 1;
            int gain = has_move ? W.the_move : -W.the_move;
            score += black ? gain : -gain;
        } else if (mat_b >= mat_w + W.man_value && bk && nw > 0 && nw <= 4) {
            score += drive_term(bk, w, wk);
        } else if (mat_w >= mat_b + W.man_value && wk && nb > 0 && nb <= 4) {
            score -= drive_term(wk, b, bk);
        }
    }
    return black ? score : -score;
}

/* -- move generation ------------------------------------------------------------------- */

typedef struct {
    u32 frm, to, taken;
} Move;

typedef struct {
    int64_t order;
    Move m;
} Ordered;

/* The pieces of the side to move that can jump (movegen.jumpers). */
static inline u32 jumpers(u32 own, u32 opp, u32 kings, int black, int men_backward) {
    u32 empty = ~(own | opp);
    u32 south, north;
    if (men_backward)
        south = north = own;
    else if (black)
        south = own, north = own & kings;
    else
        south = own & kings, north = own;
    u32 pieces = 0, t;
    if (south) {
        t = opp & (((empty & EVEN_NOT_H) >> 3) | ((empty & ODD_ROWS) >> 4));
        pieces = south & (((t & EVEN_NOT_H) >> 3) | ((t & ODD_ROWS) >> 4));
        t = opp & (((empty & EVEN_ROWS) >> 4) | ((empty & ODD_NOT_A) >> 5));
        pieces |= south & (((t & EVEN_ROWS) >> 4) | ((t & ODD_NOT_A) >> 5));
    }
    if (north) {
        t = opp & (((empty & EVEN_NOT_H) << 5) | ((empty & ODD_ROWS) << 4));
        pieces |= north & (((t & EVEN_NOT_H) << 5) | ((t & ODD_ROWS) << 4));
        t = opp & (((empty & EVEN_ROWS) << 4) | ((empty & ODD_NOT_A) << 3));
        pieces |= north & (((t & EVEN_ROWS) << 4) | ((t & ODD_NOT_A) << 3));
    }
    return pieces;
}

/* Every capture route as (from, to, taken), one per route; returns how many (at most
 * cap; more would be a position no game reaches, and returns -1). */
static int capture_moves(u32 own, u32 opp, u32 kings, int black, int men_backward, Move *out, int cap) {
    u32 pieces = jumpers(own, opp, kings, black, men_backward);
    if (!pieces) return 0;
    u32 empty = ~(own | opp);
    u32 crown_row = black ? BLACK_CROWN_ROW : WHITE_CROWN_ROW;
    JumpList *man_jumps = men_backward ? king_jumps : (black ? black_man_jumps : white_man_jumps);
    int n = 0;
    struct {
        int square;
        u32 taken;
    } stack[64];
    while (pieces) {
        u32 start = pieces & -pieces;
        pieces ^= start;
        JumpList *table;
        u32 crown;
        if (start & kings)
            table = king_jumps, crown = 0;
        else
            table = man_jumps, crown = crown_row;
        u32 free_ = empty | start;
        int sp = 0;
        stack[sp].square = bit_index(start) + 1;
        stack[sp].taken = 0;
        sp++;
        while (sp) {
            sp--;
            int square = stack[sp].square;
            u32 taken = stack[sp].taken;
            int extended = 0;
            JumpList *jl = &table[square];
            for (int i = 0; i < jl->count; i++) {
                Jump *j = &jl->jumps[i];
                if ((j->over & opp) && !(j->over & taken) && (j->land & free_)) {
                    extended = 1;
                    if (j->land & crown) {
                        if (n >= cap) return -1;
                        out[n].frm = start, out[n].to = j->land, out[n].taken = taken | j->over, n++;
                    } else {
                        if (sp >= 64) return -1;
                        stack[sp].square = j->land_square;
                        stack[sp].taken = taken | j->over;
                        sp++;
                    }
                }
            }
            if (!extended && taken) {
                if (n >= cap) return -1;
                out[n].frm = start, out[n].to = 1u << (square - 1), out[n].taken = taken, n++;
            }
        }
    }
    return n;
}

/* Quiet steps (movegen.quiet_moves): appended to out from index n; returns the new n. */
static int quiet_moves(u32 own, u32 opp, u32 kings, int black, Move *out, int n, int cap) {
    u32 empty = ~(own | opp);
    u32 south = black ? own : own & kings, north = black ? own & kings : own;
    u32 groups[4] = {
        ((((south & EVEN_ROWS) << 4) | ((south & ODD_NOT_A) << 3)) & empty),
        ((((south & EVEN_NOT_H) << 5) | ((south & ODD_ROWS) << 4)) & empty),
        ((((north & EVEN_ROWS) >> 4) | ((north & ODD_NOT_A) >> 5)) & empty),
        ((((north & EVEN_NOT_H) >> 3) | ((north & ODD_ROWS) >> 4)) & empty),
    };
    static const int back_odd[4] = {4, 5, -4, -3}, back_even[4] = {3, 4, -5, -4};
    for (int g = 0; g < 4; g++) {
        u32 targets = groups[g];
        while (targets) {
            u32 to = targets & -targets;
            targets ^= to;
            int shift = to & ODD_ROWS ? back_odd[g] : back_even[g];
            u32 frm = shift > 0 ? to >> shift : to << -shift;
            if (n >= cap) return -1;
            out[n].frm = frm, out[n].to = to, out[n].taken = 0, n++;
        }
    }
    return n;
}

static void apply_move(u32 own, u32 opp, u32 kings, int black, Move m, u32 *n_own, u32 *n_opp, u32 *n_kings) {
    u32 crown = black ? BLACK_CROWN_ROW : WHITE_CROWN_ROW;
    if (m.taken) {
        *n_own = (own & ~m.frm) | m.to;
        *n_opp = opp & ~m.taken;
        if ((m.frm & kings) || (m.to & crown))
            *n_kings = (kings & ~(m.frm | m.taken)) | m.to;
        else
            *n_kings = kings & ~m.taken;
    } else {
        u32 moved = m.frm | m.to;
        *n_own = own ^ moved;
        *n_opp = opp;
        if (m.frm & kings)
            *n_kings = kings ^ moved;
        else if (m.to & crown)
            *n_kings = kings | m.to;
        else
            *n_kings = kings;
    }
}

static uint64_t perft(u32 own, u32 opp, u32 kings, int black, int depth, int men_backward, int compulsory,
                      int *error) {
    if (depth <= 0) return 1;
    Move moves[MAX_MOVES];
    int n = capture_moves(own, opp, kings, black, men_backward, moves, MAX_MOVES);
    if (n < 0 || (!(n && compulsory) && (n = quiet_moves(own, opp, kings, black, moves, n, MAX_MOVES)) < 0)) {
        *error = 1;
        return 0;
    }
    if (depth == 1) return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        u32 a, b, k;
        apply_move(own, opp, kings, black, moves[i], &a, &b, &k);
        total += perft(b, a, k, !black, depth - 1, men_backward, compulsory, error);
    }
    return total;
}

/* -- the transposition table and the history scores ------------------------------------- */

typedef struct {
    u64 key;
    u32 taken;
    int16_t score;
    uint16_t generation;
    int8_t depth;
    uint8_t bound, frm_sq, to_sq; /* squares 1-32; 0: no move */
    uint8_t used;
} Entry;

typedef struct {
    PyObject_HEAD Entry *slots;
    u64 size, mask;
    unsigned generation;
    /* History scores of quiet moves, by (from square, to square): kept between searches. */
    int64_t history[33][33];
} TableObject;

static inline Move entry_move(const Entry *e) {
    Move m = {e->frm_sq ? 1u << (e->frm_sq - 1) : 0, e->to_sq ? 1u << (e->to_sq - 1) : 0, e->taken};
    return m;
}

static inline void table_store(TableObject *t, u64 key, int depth, int bound, int score, Move m) {
    Entry *old = &t->slots[key & t->mask];
    if (!old->used || old->depth <= depth || old->generation != (uint16_t)t->generation || old->key == key) {
        old->key = key;
        old->depth = (int8_t)(depth < -128 ? -128 : depth > 127 ? 127 : depth);
        old->bound = (uint8_t)bound;
        old->score = (int16_t)score;
        old->frm_sq = m.frm ? (uint8_t)(bit_index(m.frm) + 1) : 0;
        old->to_sq = m.to ? (uint8_t)(bit_index(m.to) + 1) : 0;
        old->taken = m.taken;
        old->generation = (uint16_t)t->generation;
        old->used = 1;
    }
}

static int Table_init(TableObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"size", NULL};
    long long size = 1 << 18;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|L", names, &size)) return -1;
    if (size < 1) {
        PyErr_Format(PyExc_ValueError, "a transposition table needs at least one slot, not %lld", size);
        return -1;
    }
    u64 s = 1;
    while (s < (u64)size) s <<= 1;
    Entry *slots = PyMem_Calloc(s, sizeof(Entry));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    PyMem_Free(self->slots);
    self->slots = slots;
    self->size = s;
    self->mask = s - 1;
    self->generation = 0;
    memset(self->history, 0, sizeof self->history);
    return 0;
}

static void Table_dealloc(TableObject *self) {
    PyMem_Free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int move_from_id(PyObject *mid, Move *m) {
    /* A move id: from bit | to bit << 32 | taken bits << 64. */
    PyObject *mask = PyLong_FromUnsignedLongLong(0xFFFFFFFFull);
    PyObject *shift32 = PyLong_FromLong(32), *shift64 = PyLong_FromLong(64);
    PyObject *lo = NULL, *hi = NULL, *mid2 = NULL, *to = NULL;
    int ok = -1;
    if (!mask || !shift32 || !shift64) goto done;
    lo = PyNumber_And(mid, mask);
    mid2 = PyNumber_Rshift(mid, shift32);
    if (!lo || !mid2) goto done;
    to = PyNumber_And(mid2, mask);
    hi = PyNumber_Rshift(mid, shift64);
    if (!to || !hi) goto done;
    m->frm = (u32)PyLong_AsUnsignedLongLong(lo);
    m->to = (u32)PyLong_AsUnsignedLongLong(to);
    m->taken = (u32)PyLong_AsUnsignedLongLong(hi);
    if (PyErr_Occurred()) goto done;
    if (popcount(m->frm) > 1 || popcount(m->to) > 1) {
        PyErr_SetString(PyExc_ValueError, "a move id holds one from square and one to square");
        goto done;
    }
    ok = 0;
done:
    Py_XDECREF(mask);
    Py_XDECREF(shift32);
    Py_XDECREF(shift64);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_XDECREF(mid2);
    Py_XDECREF(to);
    return ok;
}

static PyObject *move_to_id(Move m) {
    PyObject *lo = PyLong_FromUnsignedLongLong((u64)m.frm | (u64)m.to << 32);
    PyObject *hi = PyLong_FromUnsignedLong(m.taken);
    PyObject *s64 = PyLong_FromLong(64);
    PyObject *shifted = NULL, *out = NULL;
    if (lo && hi && s64) shifted = PyNumber_Lshift(hi, s64);
    if (shifted) out = PyNumber_Or(lo, shifted);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_XDECREF(s64);
    Py_XDECREF(shifted);
    return out;
}

static PyObject *Table_probe(TableObject *self, PyObject *arg) {
    u64 key = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    Entry *e = &self->slots[key & self->mask];
    if (!e->used || e->key != key) Py_RETURN_NONE;
    PyObject *mid = move_to_id(entry_move(e));
    if (!mid) return NULL;
    return Py_BuildValue("(KiiiNi)", (unsigned long long)e->key, (int)e->depth, (int)e->bound, (int)e->score, mid,
                         (int)e->generation);
}

static PyObject *Table_store(TableObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"key", "depth", "bound", "score", "move_id", NULL};
    PyObject *key_obj, *mid;
    int depth, bound, score;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiiiO", names, &key_obj, &depth, &bound, &score, &mid)) return NULL;
    u64 key = PyLong_AsUnsignedLongLongMask(key_obj);
    if (PyErr_Occurred()) return NULL;
    Move m;
    if (move_from_id(mid, &m) < 0) return NULL;
    table_store(self, key, depth, bound, score, m);
    Py_RETURN_NONE;
}

static PyObject *Table_clear(TableObject *self, PyObject *unused) {
    memset(self->slots, 0, self->size * sizeof(Entry));
    self->generation = 0;
    Py_RETURN_NONE;
}

static PyObject *Table_new_search(TableObject *self, PyObject *unused) {
    self->generation++;
    Py_RETURN_NONE;
}

static PyObject *Table_fill(TableObject *self, PyObject *unused) {
    u64 n = self->size < 4096 ? self->size : 4096, used = 0;
    for (u64 i = 0; i < n; i++) used += self->slots[i].used;
    return PyFloat_FromDouble((double)used / (double)n);
}

static PyObject *Table_decay_history(TableObject *self, PyObject *unused) {
    /* As the Python engine's dict: old scores still help ordering, a quarter of them. */
    for (int a = 0; a < 33; a++)
        for (int b = 0; b < 33; b++) self->history[a][b] >>= 2;
    Py_RETURN_NONE;
}

static PyObject *Table_clear_history(TableObject *self, PyObject *unused) {
    memset(self->history, 0, sizeof self->history);
    Py_RETURN_NONE;
}

static PyObject *Table_history_scores(TableObject *self, PyObject *unused) {
    /* The history as the Python engine keeps it: quiet move id -> score, zeros left out. */
    PyObject *out = PyDict_New();
    if (!out) return NULL;
    for (int a = 1; a < 33; a++)
        for (int b = 1; b < 33; b++)
            if (self->history[a][b]) {
                PyObject *k = PyLong_FromUnsignedLongLong((u64)1 << (a - 1) | (u64)1 << (b - 1) << 32);
                PyObject *v = PyLong_FromLongLong(self->history[a][b]);
                if (!k || !v || PyDict_SetItem(out, k, v) < 0) {
                    Py_XDECREF(k);
                    Py_XDECREF(v);
                    Py_DECREF(out);
                    return NULL;
                }
                Py_DECREF(k);
                Py_DECREF(v);
            }
    return out;
}

static PyObject *Table_len(TableObject *self, void *unused) { return PyLong_FromUnsignedLongLong(self->size); }
static PyObject *Table_get_generation(TableObject *self, void *unused) { return PyLong_FromUnsignedLong(self->generation); }
static PyObject *Table_get_bytes(TableObject *self, void *unused) {
    return PyLong_FromUnsignedLongLong(self->size * sizeof(Entry));
}

static Py_ssize_t Table_length(TableObject *self) { return (Py_ssize_t)self->size; }

static PyMethodDef Table_methods[] = {
    {"probe", (PyCFunction)Table_probe, METH_O, "The entry (key, depth, bound, score, move_id, generation) or None."},
    {"store", (PyCFunction)(void (*)(void))Table_store, METH_VARARGS | METH_KEYWORDS, "Store a result."},
    {"clear", (PyCFunction)Table_clear, METH_NOARGS, "Empty every slot."},
    {"new_search", (PyCFunction)Table_new_search, METH_NOARGS, "Entries of earlier searches give way first."},
    {"fill", (PyCFunction)Table_fill, METH_NOARGS, "The share of slots in use, from the first 4096."},
    {"decay_history", (PyCFunction)Table_decay_history, METH_NOARGS, "Quarter the history scores."},
    {"clear_history", (PyCFunction)Table_clear_history, METH_NOARGS, "Forget the history scores."},
    {"history_scores", (PyCFunction)Table_history_scores, METH_NOARGS, "The history scores as a dict."},
    {NULL},
};

static PyGetSetDef Table_getset[] = {
    {"size", (getter)Table_len, NULL, "Slots (a power of two).", NULL},
    {"generation", (getter)Table_get_generation, NULL, "Bumped once per search.", NULL},
    {"bytes", (getter)Table_get_bytes, NULL, "Memory of the slots.", NULL},
    {NULL},
};

static PySequenceMethods Table_as_sequence = {.sq_length = (lenfunc)Table_length};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crownhead.rules.engine._native.Table",
    .tp_doc = "The native transposition table (24-byte slots) and the history scores of quiet moves.",
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Table_init,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = Table_methods,
    .tp_getset = Table_getset,
    .tp_as_sequence = &Table_as_sequence,
};

/* -- the endgame tables' probe ---------------------------------------------------------- */

/* rules.engine.egdb.EndgameTables.value in C: the same index of a position in its
 * material's table, the same values, the same captures worked out where a win/draw/loss
 * table keeps none. The tables' bytes come from Python a block at a time (the files are
 * firmware's business): each searcher keeps the blocks it has read (BLOCK_SLOTS of them,
 * holding references), so the tree asks Python only for a block it has not seen yet. */

#define MATERIALS (7 * 7 * 7 * 7)
#define BLOCK_SLOTS 512
#define WHOLE_SHIFT 63 /* a table in one block */

typedef struct {
    PyObject *read_block; /* read_block(n) -> bytes: block n of the table, inflated */
    int shift;       /* an index's block is index >> shift */
    int wdl;         /* two bits an index (0 drawn, 1 won, 2 lost), no capture positions */
    int present;
} ProbeTable;

typedef struct {
    PyObject_HEAD int pieces;
    int won, lost;
    PyObject *fallback; /* the Python probe: it reports a damaged table, once */
    ProbeTable tables[MATERIALS];
} ProbeObject;

static u64 comb[33][7];
static uint8_t reversed_byte[256];

static void init_probe_tables(void) {
    for (int n = 0; n <= 32; n++)
        for (int k = 0; k <= 6; k++) {
            u64 c = 1;
            if (k > n)
                c = 0;
            else
                for (int i = 0; i < k; i++) c = c * (u64)(n - i) / (u64)(i + 1);
            comb[n][k] = c;
        }
    for (int b = 0; b < 256; b++) {
        int r = 0;
        for (int i = 0; i < 8; i++)
            if (b >> i & 1) r |= 1 << (7 - i);
        reversed_byte[b] = (uint8_t)r;
    }
}

/* egdb.flip: the board turned round, square s to 33 - s. */
static inline u32 flip(u32 x) {
    return (u32)reversed_byte[x & 255] << 24 | (u32)reversed_byte[x >> 8 & 255] << 16 |
           (u32)reversed_byte[x >> 16 & 255] << 8 | (u32)reversed_byte[x >> 24];
}

/* egdb._rank: the combinatorial number of a set of bits. */
static inline u64 rank_of(u32 mask) {
    u64 r = 0;
    int i = 1;
    while (mask) {
        r += comb[bit_index(mask)][i];
        mask &= mask - 1;
        i++;
    }
    return r;
}

static int Probe_init(ProbeObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"pieces", "tables", "fallback", "won", NULL};
    PyObject *tables, *fallback;
    int pieces, won;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iOOi", names, &pieces, &tables, &fallback, &won)) return -1;
    if (self->fallback) {
        /* Searchers read the tables without the GIL: they never change under them. */
        PyErr_SetString(PyExc_RuntimeError, "a probe is made once");
        return -1;
    }
    if (pieces < 0 || pieces > 6) {
        PyErr_SetString(PyExc_ValueError, "the native probe covers up to six pieces");
        return -1;
    }
    PyObject *seq = PySequence_Fast(tables, "tables: (men, kings, men, kings, wdl, shift, read_block) each");
    if (!seq) return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        int a, b, c, d, wdl, shift;
        PyObject *read_block;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiiiiiO", &a, &b, &c, &d, &wdl, &shift, &read_block)) {
            Py_DECREF(seq);
            return -1;
        }
        if (a < 0 || b < 0 || c < 0 || d < 0 || a > 6 || b > 6 || c > 6 || d > 6 || shift < 2 || shift > WHOLE_SHIFT) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a table's material or block size is out of range");
            return -1;
        }
        ProbeTable *t = &self->tables[((a * 7 + b) * 7 + c) * 7 + d];
        Py_INCREF(read_block);
        Py_XSETREF(t->read_block, read_block);
        t->shift = shift;
        t->wdl = wdl;
        t->present = 1;
    }
    Py_DECREF(seq);
    Py_INCREF(fallback);
    Py_XSETREF(self->fallback, fallback);
    self->pieces = pieces;
    self->won = won;
    self->lost = won + 1;
    return 0;
}

static void Probe_dealloc(ProbeObject *self) {
    for (int i = 0; i < MATERIALS; i++) Py_XDECREF(self->tables[i].read_block);
    Py_XDECREF(self->fallback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject ProbeType;

typedef struct {
    int material; /* -1: empty */
    long long block;
    PyObject *data;
} CachedBlock;

typedef struct {
    ProbeObject *probe;
    CachedBlock slots[BLOCK_SLOTS];
    uint8_t dead[MATERIALS]; /* a table found damaged: not covered from then on */
    int error;               /* a Python error is set (not a damaged table) */
} ProbeState;

static void probe_state_init(ProbeState *st, ProbeObject *probe) {
    st->probe = probe;
    for (int i = 0; i < BLOCK_SLOTS; i++) st->slots[i].material = -1, st->slots[i].data = NULL;
    memset(st->dead, 0, sizeof st->dead);
    st->error = 0;
}

static void probe_state_clear(ProbeState *st) {
    for (int i = 0; i < BLOCK_SLOTS; i++) {
        Py_CLEAR(st->slots[i].data);
        st->slots[i].material = -1;
    }
}

/* The value of a position (own moving towards 29-32, as the tables keep it) from the
 * Python probe, for a table whose block could not be read: it drops and reports the
 * table as the Python search would. -1: not covered; -2: an error. The GIL is held. */
static long probe_fallback(ProbeState *st, u32 own, u32 opp, u32 kings) {
    PyObject *v = PyObject_CallFunction(st->probe->fallback, "kkkO", (unsigned long)own, (unsigned long)opp,
                                        (unsigned long)kings, Py_True);
    if (!v) return -2;
    long out = -1;
    if (v != Py_None) {
        out = PyLong_AsLong(v);
        if (out == -1 && PyErr_Occurred()) out = -2;
    }
    Py_DECREF(v);
    return out;
}

/* The value at index `index` of material `mi`; -1: not covered (a damaged table), -2:
 * an error. `gil`: whether the caller holds the GIL (else it is taken for a new block). */
static long probe_read(ProbeState *st, PyThreadState **tstate, int mi, u64 index, u32 own, u32 opp, u32 kings) {
    ProbeTable *t = &st->probe->tables[mi];
    long long block = t->shift >= WHOLE_SHIFT ? 0 : (long long)(index >> t->shift);
    u64 offset = t->shift >= WHOLE_SHIFT ? index : index & ((1ull << t->shift) - 1);
    CachedBlock *slot = &st->slots[(u64)(mi * 40503u + (u64)block * 2654435761u) % BLOCK_SLOTS];
    if (slot->material != mi || slot->block != block) {
        PyEval_RestoreThread(*tstate);
        PyObject *data = PyObject_CallFunction(t->read_block, "L", block);
        long out = 0;
        if (!data || !PyBytes_Check(data)) {
            if (data || PyErr_ExceptionMatches(PyExc_LookupError)) {
                /* Damaged (or not bytes): the Python probe drops the table and says so. */
                Py_XDECREF(data);
                PyErr_Clear();
                st->dead[mi] = 1;
                out = probe_fallback(st, own, opp, kings);
            } else
                out = -2;
            *tstate = PyEval_SaveThread();
            return out;
        }
        Py_XSETREF(slot->data, data);
        slot->material = mi;
        slot->block = block;
        *tstate = PyEval_SaveThread();
    }
    const uint8_t *bytes = (const uint8_t *)PyBytes_AS_STRING(slot->data);
    Py_ssize_t length = PyBytes_GET_SIZE(slot->data);
    u64 at = t->wdl ? offset >> 2 : offset;
    if (at >= (u64)length) {
        /* Past the block's end: the Python table raises IndexError, a damaged table. */
        PyEval_RestoreThread(*tstate);
        st->dead[mi] = 1;
        long out = probe_fallback(st, own, opp, kings);
        *tstate = PyEval_SaveThread();
        return out;
    }
    if (!t->wdl) return bytes[at];
    int v = bytes[at] >> ((offset & 3) << 1) & 3;
    return v == 1 ? st->probe->won : v == 2 ? st->probe->lost : 0;
}

/* EndgameTables.value: 0 drawn, n + 1 decided in n plies, won/lost in plies unknown;
 * -1 not covered, -2 an error (set). Called without the GIL (*tstate saved). */
static long probe_value(ProbeState *st, PyThreadState **tstate, u32 own, u32 opp, u32 kings, int black) {
    ProbeObject *p = st->probe;
    if (popcount(own | opp) > p->pieces) return -1;
    if (!own) return 1;
    if (!black) own = flip(own), opp = flip(opp), kings = flip(kings);
    if ((own & ~kings & BLACK_CROWN_ROW) || (opp & ~kings & WHITE_CROWN_ROW)) return -1;
    int a = popcount(own & ~kings), b = popcount(own & kings), c = popcount(opp & ~kings), d = popcount(opp & kings);
    if (a > 6 || b > 6 || c > 6 || d > 6) return -1;
    int mi = ((a * 7 + b) * 7 + c) * 7 + d;
    ProbeTable *t = &p->tables[mi];
    if (!t->present || st->dead[mi]) return -1;
    if (t->wdl && jumpers(own, opp, kings, 1, 0)) {
        /* Not kept: the captures say (each leads to fewer pieces); egdb.combine. */
        Move routes[MAX_MOVES];
        int n = capture_moves(own, opp, kings, 1, 0, routes, MAX_MOVES);
        long best_win = 0, longest_loss = 0;
        int untimed_win = 0, untimed_loss = 0, draw = 0;
        for (int i = 0; i < n; i++) {
            u32 n_own, n_opp, n_kings;
            apply_move(own, opp, kings, 1, routes[i], &n_own, &n_opp, &n_kings);
            long v = probe_value(st, tstate, flip(n_opp), flip(n_own), flip(n_kings), 1);
            if (v < 0) return v;
            if (v == 0)
                draw = 1;
            else if (v & 1) {
                if (v >= p->won)
                    untimed_win = 1;
                else if (!best_win || v < best_win)
                    best_win = v;
            } else if (v >= p->won)
                untimed_loss = 1;
            else if (v > longest_loss)
                longest_loss = v;
        }
        if (best_win || untimed_win) return untimed_win ? p->won : best_win + 1;
        if (draw) return 0;
        return untimed_loss ? p->lost : longest_loss + 1;
    }
    u64 index = ((rank_of(own & ~kings) * comb[32][b] + rank_of(own & kings)) * comb[28][c] +
                 rank_of((opp & ~kings) >> 4)) *
                    comb[32][d] +
                rank_of(opp & kings);
    return probe_read(st, tstate, mi, index, own, opp, kings);
}

static PyObject *Probe_value(ProbeObject *self, PyObject *args) {
    /* value(own, opp, kings, black): as EndgameTables.value (the tests compare them). */
    unsigned long own, opp, kings;
    int black;
    if (!PyArg_ParseTuple(args, "kkkp", &own, &opp, &kings, &black)) return NULL;
    ProbeState *st = PyMem_Malloc(sizeof(ProbeState));
    if (!st) return PyErr_NoMemory();
    probe_state_init(st, self);
    PyThreadState *tstate = PyEval_SaveThread();
    long v = probe_value(st, &tstate, (u32)own, (u32)opp, (u32)kings, black);
    PyEval_RestoreThread(tstate);
    probe_state_clear(st);
    PyMem_Free(st);
    if (v == -2) return NULL;
    if (v == -1) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

static PyMethodDef Probe_methods[] = {
    {"value", (PyCFunction)Probe_value, METH_VARARGS, "value(own, opp, kings, black): EndgameTables.value in C."},
    {NULL},
};

static PyTypeObject ProbeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crownhead.rules.engine._native.Probe",
    .tp_basicsize = sizeof(ProbeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Probe_init,
    .tp_dealloc = (destructor)Probe_dealloc,
    .tp_methods = Probe_methods,
    .tp_doc = "Probe(pieces, tables, fallback, won): the endgame tables' probe in C "
              "(tables: (men, kings, opponent's men, opponent's kings, wdl, block shift, read_block(n) -> bytes)).",
};

/* -- the search ---------------------------------------------------------------------- */

typedef struct {
    u64 *keys;
    u64 mask;
    Py_ssize_t count;
} KeySet;

typedef struct {
    PyObject_HEAD TableObject *table;
    PyObject *clock, *timeout, *egdb_value, *known; /* known: the engine's dict of table values */
    double deadline;
    int has_deadline;
    long long max_nodes; /* < 0: none */
    long long nodes;
    int egdb_pieces, won, table_values;
    int compulsory, men_backward, reductions, threats, search_won;
    int error;
    KeySet path_set, once_set;
    u64 line[PATH_MAX_KEYS + MAX_PLY];
    int line_len;
    Move killers[MAX_PLY + 2][2];
    /* The tables' probe in C (None given: egdb_value is called back instead). */
    int has_probe;
    ProbeState probe;
    /* The tree is walked without the GIL (the board's main loop runs on beside it); it is
     * taken back only to call Python: the clock, the tables, an error. */
    PyThreadState *tstate;
} SearcherObject;

#define HOLD_GIL(s) PyEval_RestoreThread((s)->tstate)
#define LET_GO(s) ((s)->tstate = PyEval_SaveThread())

/* An error raised from the tree (the GIL not held): set, and the search unwinds. */
static void fail(SearcherObject *s, PyObject *type, const char *message) {
    HOLD_GIL(s);
    PyErr_SetString(type, message);
    LET_GO(s);
    s->error = 1;
}

static int keyset_from(PyObject *iterable, KeySet *set) {
    PyObject *seq = PySequence_Fast(iterable, "a set of keys");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    u64 size = 16;
    while (size < (u64)(2 * n + 2)) size <<= 1;
    set->keys = PyMem_Calloc(size, sizeof(u64));
    if (!set->keys) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    set->mask = size - 1;
    set->count = 0;
    /* Key 0 marks an empty slot; a position whose key is 0 is looked for in the line. */
    for (Py_ssize_t i = 0; i < n; i++) {
        u64 k = PyLong_AsUnsignedLongLongMask(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (!k) continue;
        u64 j = (k * 0x9E3779B97F4A7C15ull) >> 7 & set->mask;
        while (set->keys[j] && set->keys[j] != k) j = (j + 1) & set->mask;
        if (!set->keys[j]) set->keys[j] = k, set->count++;
    }
    Py_DECREF(seq);
    return 0;
}

static inline int keyset_has(const KeySet *set, u64 k) {
    if (!set->count || !k) return 0;
    u64 j = (k * 0x9E3779B97F4A7C15ull) >> 7 & set->mask;
    while (set->keys[j]) {
        if (set->keys[j] == k) return 1;
        j = (j + 1) & set->mask;
    }
    return 0;
}

static inline int in_path(SearcherObject *s, u64 key) {
    if (keyset_has(&s->path_set, key)) return 1;
    for (int i = s->line_len - 1; i >= 0; i--)
        if (s->line[i] == key) return 1;
    return 0;
}

static inline int greater(const Ordered *a, const Ordered *b) {
    /* Python's sort of (order, mid, ...) tuples, reversed: mid compares taken, to, from. */
    if (a->order != b->order) return a->order > b->order;
    if (a->m.taken != b->m.taken) return a->m.taken > b->m.taken;
    if (a->m.to != b->m.to) return a->m.to > b->m.to;
    return a->m.frm > b->m.frm;
}

static void sort_moves(Ordered *moves, int n) {
    for (int i = 1; i < n; i++) {
        Ordered x = moves[i];
        int j = i - 1;
        while (j >= 0 && greater(&x, &moves[j])) {
            moves[j + 1] = moves[j];
            j--;
        }
        moves[j + 1] = x;
    }
}

static inline u64 child_key_of(u64 key, u32 kings, int black, Move m) {
    int side = black ? 0 : 1;
    u32 crown = black ? BLACK_CROWN_ROW : WHITE_CROWN_ROW;
    int f = bit_index(m.frm) + 1, t = bit_index(m.to) + 1;
    u64 k = key;
    if (m.frm & kings)
        k ^= zobrist_king[side][f] ^ zobrist_king[side][t];
    else if (m.to & crown)
        k ^= zobrist_man[side][f] ^ zobrist_king[side][t];
    else
        k ^= zobrist_man[side][f] ^ zobrist_man[side][t];
    u32 taken = m.taken;
    while (taken) {
        u32 cb = taken & -taken;
        taken ^= cb;
        int c = bit_index(cb) + 1;
        k ^= cb & kings ? zobrist_king[1 - side][c] : zobrist_man[1 - side][c];
    }
    return k ^ zobrist_side;
}

/* The endgame tables' value of a position, through the engine's dict and the probe:
 * -2 on an error, -1 for "not covered", else the value. */
static long table_value_held(SearcherObject *s, u32 own, u32 opp, u32 kings, int black, u64 key) {
    PyObject *k = PyLong_FromUnsignedLongLong(key);
    if (!k) return -2;
    PyObject *v = PyDict_GetItemWithError(s->known, k);
    if (v) {
        Py_INCREF(v);
    } else {
        if (PyErr_Occurred()) {
            Py_DECREF(k);
            return -2;
        }
        v = PyObject_CallFunction(s->egdb_value, "kkkO", (unsigned long)own, (unsigned long)opp, (unsigned long)kings,
                                  black ? Py_True : Py_False);
        if (!v) {
            Py_DECREF(k);
            return -2;
        }
        if (PyDict_Size(s->known) >= s->table_values) PyDict_Clear(s->known);
        if (PyDict_SetItem(s->known, k, v) < 0) {
            Py_DECREF(k);
            Py_DECREF(v);
            return -2;
        }
    }
    Py_DECREF(k);
    long out = -1;
    if (v != Py_None) {
        out = PyLong_AsLong(v);
        if (out == -1 && PyErr_Occurred()) out = -2;
    }
    Py_DECREF(v);
    return out;
}

static long table_value(SearcherObject *s, u32 own, u32 opp, u32 kings, int black, u64 key) {
    if (s->has_probe) return probe_value(&s->probe, &s->tstate, own, opp, kings, black);
    HOLD_GIL(s);
    long value = table_value_held(s, own, opp, kings, black, key);
    LET_GO(s);
    return value;
}

/* Whether the deadline or the node budget has passed: 1, 0, or -1 on an error. */
static int time_is_up(SearcherObject *s) {
    int stop = 0;
    if (s->has_deadline) {
        HOLD_GIL(s);
        PyObject *now = PyObject_CallNoArgs(s->clock);
        double t = now ? PyFloat_AsDouble(now) : -1.0;
        Py_XDECREF(now);
        int failed = !now || (t == -1.0 && PyErr_Occurred());
        LET_GO(s);
        if (failed) return -1;
        stop = t >= s->deadline;
    }
    if (!stop && s->max_nodes >= 0 && s->nodes >= s->max_nodes) stop = 1;
    return stop;
}

static int negamax(SearcherObject *s, u32 own, u32 opp, u32 kings, int black, u64 key, int depth, int alpha, int beta,
                   int ply, int quiet) {
    s->nodes++;
    if (!(s->nodes & CHECK_MASK)) {
        int stop = time_is_up(s);
        if (stop < 0) {
            s->error = 1;
            return 0;
        }
        if (stop) {
            HOLD_GIL(s);
            PyErr_SetNone(s->timeout);
            LET_GO(s);
            s->error = 1;
            return 0;
        }
    }
    if (in_path(s, key) || ((ply & 1) && keyset_has(&s->once_set, key))) return 0;
    if (quiet >= FORTY_MOVES_PLIES) return 0;
    int band = 0;
    if (s->egdb_pieces && popcount(own | opp) <= s->egdb_pieces) {
        long known = table_value(s, own, opp, kings, black, key);
        if (known == -2) {
            s->error = 1;
            return 0;
        }
        if (known >= 0) {
            if (!known) return 0;
            if (known < s->won) return known & 1 ? ply + (int)known - 1 - WIN : WIN - ply - (int)known + 1;
            if (depth <= 0 || !s->search_won) {
                int score = evaluate(own, opp, kings, black, count_quiet(own, opp, kings, black));
                score = score < -PROGRESS_CAP ? -PROGRESS_CAP : score > PROGRESS_CAP ? PROGRESS_CAP : score;
                return known == s->won ? score + TABLE_WIN : score - TABLE_WIN;
            }
            band = 1;
        }
    }
    u32 empty = ~(own | opp);
    Move routes[MAX_MOVES];
    int nroutes = 0;
    if (jumpers(own, opp, kings, black, s->men_backward)) {
        nroutes = capture_moves(own, opp, kings, black, s->men_backward, routes, MAX_MOVES);
        if (nroutes < 0) {
            fail(s, PyExc_RuntimeError, "more capture routes than the native search holds");
            return 0;
        }
    }
    int stand_pat = 0, static_score = 0;
    if (depth <= 0) {
        if (!nroutes) {
            int mobility = count_quiet(own, opp, kings, black);
            if (!mobility) return ply - WIN;
            if (depth < 0 || !s->compulsory || !s->threats) return evaluate(own, opp, kings, black, mobility);
            /* At the horizon, with a piece of ours under attack, one more ply settles it. */
            u32 o_south, o_north;
            if (black)
                o_south = s->men_backward ? opp : opp & kings, o_north = opp;
            else
                o_south = opp, o_north = s->men_backward ? opp : opp & kings;
            u32 threat = 0, t;
            if (o_south) {
                t = own & (((empty & EVEN_NOT_H) >> 3) | ((empty & ODD_ROWS) >> 4));
                threat = o_south & (((t & EVEN_NOT_H) >> 3) | ((t & ODD_ROWS) >> 4));
                t = own & (((empty & EVEN_ROWS) >> 4) | ((empty & ODD_NOT_A) >> 5));
                threat |= o_south & (((t & EVEN_ROWS) >> 4) | ((t & ODD_NOT_A) >> 5));
            }
            if (o_north && !threat) {
                t = own & (((empty & EVEN_NOT_H) << 5) | ((empty & ODD_ROWS) << 4));
                threat = o_north & (((t & EVEN_NOT_H) << 5) | ((t & ODD_ROWS) << 4));
                t = own & (((empty & EVEN_ROWS) << 4) | ((empty & ODD_NOT_A) << 3));
                threat |= o_north & (((t & EVEN_ROWS) << 4) | ((t & ODD_NOT_A) << 3));
            }
            if (!threat) return evaluate(own, opp, kings, black, mobility);
        } else if (!s->compulsory) {
            int mobility = count_quiet(own, opp, kings, black);
            if (mobility) {
                /* Captures are optional: the side may decline them all, so a floor. */
                static_score = evaluate(own, opp, kings, black, mobility);
                if (static_score >= beta) return static_score;
                stand_pat = 1;
                if (static_score > alpha) alpha = static_score;
            }
        }
    }
    if (ply >= MAX_PLY) return evaluate(own, opp, kings, black, count_quiet(own, opp, kings, black));
    if (alpha < ply - WIN) {
        alpha = ply - WIN;
        if (alpha >= beta) return alpha;
    }
    if (beta > WIN - ply - 1) {
        beta = WIN - ply - 1;
        if (alpha >= beta) return beta;
    }
    int alpha_orig = alpha;
    TableObject *table = s->table;
    Move hash_move = {0, 0, 0};
    Entry *entry = &table->slots[key & table->mask];
    if (entry->used && entry->key == key) {
        hash_move = entry_move(entry);
        if (entry->depth >= depth) {
            int score = entry->score;
            if (score > WIN_THRESHOLD)
                score -= ply;
            else if (score < -WIN_THRESHOLD)
                score += ply;
            if (entry->bound == EXACT) return score;
            if (entry->bound == LOWER) {
                if (score >= beta) return score;
            } else if (score <= alpha)
                return score;
        }
    }
    int only_captures = (nroutes && s->compulsory) || stand_pat;
    int n_moves = only_captures ? nroutes : nroutes + count_quiet(own, opp, kings, black);
    if (!n_moves) return stand_pat ? alpha : ply - WIN;
    int child_depth = n_moves > 1 ? depth - 1 : depth;

    Ordered moves[MAX_MOVES + 1];
    int count = 0;
    if (hash_move.frm && (!only_captures || hash_move.taken)) {
        moves[0].order = (int64_t)1 << 40;
        moves[0].m = hash_move;
        count = 1;
    }
    int generated = 0;
    if (s->line_len >= PATH_MAX_KEYS + MAX_PLY) {
        fail(s, PyExc_RuntimeError, "the native search's line is full");
        return 0;
    }
    s->line[s->line_len++] = key;
    int best = stand_pat ? static_score : -INFINITY_SCORE;
    Move best_move = {0, 0, 0};
    int first = 1;
    int late = s->reductions && child_depth >= 2;
    const int64_t killer_order = (int64_t)1 << 29;
    int side = black ? 0 : 1;
    (void)side;
    int index = 0;
    for (;;) {
        if (index == count) {
            if (generated) break;
            generated = 1;
            int start = count;
            for (int i = 0; i < nroutes; i++) {
                Move m = routes[i];
                if (m.frm == hash_move.frm && m.to == hash_move.to && m.taken == hash_move.taken) continue;
                moves[count].order = ((int64_t)1 << 30) + ((int64_t)popcount(m.taken) << 8) + popcount(m.taken & kings);
                moves[count].m = m;
                count++;
            }
            if (!only_captures) {
                Move quiet_list[MAX_MOVES];
                int nq = quiet_moves(own, opp, kings, black, quiet_list, 0, MAX_MOVES);
                Move k1 = s->killers[ply][0], k2 = s->killers[ply][1];
                for (int i = 0; i < nq && count < MAX_MOVES; i++) {
                    Move m = quiet_list[i];
                    if (m.frm == hash_move.frm && m.to == hash_move.to && !hash_move.taken) continue;
                    int64_t order;
                    if (m.frm == k1.frm && m.to == k1.to)
                        order = killer_order;
                    else if (m.frm == k2.frm && m.to == k2.to)
                        order = killer_order - 1;
                    else
                        order = table->history[bit_index(m.frm) + 1][bit_index(m.to) + 1];
                    moves[count].order = order;
                    moves[count].m = m;
                    count++;
                }
            }
            if (count == start) break;
            sort_moves(moves + start, count - start);
        }
        int64_t order = moves[index].order;
        Move m = moves[index].m;
        u32 n_own, n_opp, n_kings;
        apply_move(own, opp, kings, black, m, &n_own, &n_opp, &n_kings);
        u64 child_key = child_key_of(key, kings, black, m);
        int child_quiet = (!m.taken && (m.frm & kings)) ? quiet + 1 : 0;
        int score;
        if (first) {
            score = -negamax(s, n_opp, n_own, n_kings, !black, child_key, child_depth, -beta, -alpha, ply + 1,
                             child_quiet);
            if (s->error) return 0;
            first = 0;
        } else {
            if (late && index >= LATE_MOVES && order < killer_order && !m.taken) {
                score = -negamax(s, n_opp, n_own, n_kings, !black, child_key, child_depth - 1, -alpha - 1, -alpha,
                                 ply + 1, child_quiet);
                if (s->error) return 0;
                if (score > alpha) {
                    score = -negamax(s, n_opp, n_own, n_kings, !black, child_key, child_depth, -alpha - 1, -alpha,
                                     ply + 1, child_quiet);
                    if (s->error) return 0;
                }
            } else {
                score = -negamax(s, n_opp, n_own, n_kings, !black, child_key, child_depth, -alpha - 1, -alpha,
                                 ply + 1, child_quiet);
                if (s->error) return 0;
            }
            if (alpha < score && score < beta) {
                score = -negamax(s, n_opp, n_own, n_kings, !black, child_key, child_depth, -beta, -alpha, ply + 1,
                                 child_quiet);
                if (s->error) return 0;
            }
        }
        index++;
        if (score > best) {
            best = score;
            best_move = m;
            if (score > alpha) {
                alpha = score;
                if (score >= beta) {
                    if (!m.taken) {
                        Move *slot = s->killers[ply];
                        if (!(slot[0].frm == m.frm && slot[0].to == m.to)) {
                            slot[1] = slot[0];
                            slot[0] = m;
                        }
                        table->history[bit_index(m.frm) + 1][bit_index(m.to) + 1] += depth * depth + 1;
                    }
                    break;
                }
            }
        }
    }
    s->line_len--;
    int bound = best >= beta ? LOWER : (best > alpha_orig ? EXACT : UPPER);
    int stored = best > WIN_THRESHOLD ? best + ply : (best < -WIN_THRESHOLD ? best - ply : best);
    /* Won or lost, yet a draw: a repetition or the 40-move rule below, which depends on
     * the line that led here; not kept. */
    if (band && !best) return best;
    table_store(table, key, depth, bound, stored, best_move);
    return best;
}

static int Searcher_init(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"table",      "clock",       "timeout",      "path",      "once",
                            "deadline",   "max_nodes",   "egdb_value",   "egdb_pieces", "known",
                            "won",        "table_values", "compulsory",  "men_backward", "reductions",
                            "threats",    "search_won",  "probe",        NULL};
    PyObject *table, *clock, *timeout, *path, *once, *deadline, *max_nodes, *egdb_value, *known, *probe = Py_None;
    int egdb_pieces, won, table_values, compulsory, men_backward, reductions, threats, search_won;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OOOOOOOiOiippppp|O", names, &TableType, &table, &clock, &timeout,
                                     &path, &once, &deadline, &max_nodes, &egdb_value, &egdb_pieces, &known, &won,
                                     &table_values, &compulsory, &men_backward, &reductions, &threats, &search_won,
                                     &probe))
        return -1;
    if (probe != Py_None && !PyObject_TypeCheck(probe, &ProbeType)) {
        PyErr_SetString(PyExc_TypeError, "probe must be a crownhead.rules.engine._native.Probe or None");
        return -1;
    }
    if (!weights_set) {
        PyErr_SetString(PyExc_RuntimeError, "the evaluation's weights were not set (set_weights)");
        return -1;
    }
    if (!PyDict_Check(known)) {
        PyErr_SetString(PyExc_TypeError, "known must be a dict");
        return -1;
    }
    Py_INCREF(table);
    Py_INCREF(clock);
    Py_INCREF(timeout);
    Py_INCREF(egdb_value);
    Py_INCREF(known);
    self->table = (TableObject *)table;
    self->clock = clock;
    self->timeout = timeout;
    self->egdb_value = egdb_value;
    self->known = known;
    self->has_deadline = deadline != Py_None;
    self->deadline = self->has_deadline ? PyFloat_AsDouble(deadline) : 0.0;
    self->max_nodes = max_nodes == Py_None ? -1 : PyLong_AsLongLong(max_nodes);
    if (PyErr_Occurred()) return -1;
    self->egdb_pieces = egdb_value == Py_None ? 0 : egdb_pieces;
    if (self->has_probe) {
        probe_state_clear(&self->probe);
        Py_CLEAR(self->probe.probe);
        self->has_probe = 0;
    }
    if (probe != Py_None && self->egdb_pieces) {
        Py_INCREF(probe);
        probe_state_init(&self->probe, (ProbeObject *)probe);
        self->has_probe = 1;
    }
    self->won = won;
    self->table_values = table_values;
    self->compulsory = compulsory;
    self->men_backward = men_backward;
    self->reductions = reductions;
    self->threats = threats;
    self->search_won = search_won;
    self->nodes = 0;
    self->error = 0;
    self->line_len = 0;
    memset(self->killers, 0, sizeof self->killers);
    if (keyset_from(path, &self->path_set) < 0 || keyset_from(once, &self->once_set) < 0) return -1;
    return 0;
}

static void Searcher_dealloc(SearcherObject *self) {
    Py_XDECREF(self->table);
    Py_XDECREF(self->clock);
    Py_XDECREF(self->timeout);
    Py_XDECREF(self->egdb_value);
    Py_XDECREF(self->known);
    if (self->has_probe) {
        probe_state_clear(&self->probe);
        Py_CLEAR(self->probe.probe);
    }
    PyMem_Free(self->path_set.keys);
    PyMem_Free(self->once_set.keys);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Searcher_call(SearcherObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"own", "opp", "kings", "black", "key", "depth", "alpha", "beta", "ply", "quiet", NULL};
    unsigned long own, opp, kings;
    int black, depth, alpha, beta, ply, quiet = 0;
    PyObject *key_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "kkkpOiiii|i", names, &own, &opp, &kings, &black, &key_obj, &depth,
                                     &alpha, &beta, &ply, &quiet))
        return NULL;
    u64 key = PyLong_AsUnsignedLongLongMask(key_obj);
    if (PyErr_Occurred()) return NULL;
    if (self->table == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the searcher was not initialised");
        return NULL;
    }
    self->error = 0;
    self->line_len = 0;
    LET_GO(self);
    int score = negamax(self, (u32)own, (u32)opp, (u32)kings, black, key, depth, alpha, beta, ply, quiet);
    HOLD_GIL(self);
    if (self->error) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "the native search failed");
        return NULL;
    }
    return PyLong_FromLong(score);
}

static PyObject *Searcher_get_nodes(SearcherObject *self, void *unused) { return PyLong_FromLongLong(self->nodes); }

static PyObject *Searcher_get_deadline(SearcherObject *self, void *unused) {
    if (!self->has_deadline) Py_RETURN_NONE;
    return PyFloat_FromDouble(self->deadline);
}

/* The time manager moves the deadline between iterations and root moves (search.py). */
static int Searcher_set_deadline(SearcherObject *self, PyObject *value, void *unused) {
    if (value == NULL || value == Py_None) {
        self->has_deadline = 0;
        return 0;
    }
    double t = PyFloat_AsDouble(value);
    if (t == -1.0 && PyErr_Occurred()) return -1;
    self->deadline = t;
    self->has_deadline = 1;
    return 0;
}

static PyGetSetDef Searcher_getset[] = {
    {"nodes", (getter)Searcher_get_nodes, NULL, "Positions searched so far.", NULL},
    {"deadline", (getter)Searcher_get_deadline, (setter)Searcher_set_deadline,
     "When the tree stops (the engine's clock), or None.", NULL},
    {NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "crownhead.rules.engine._native.Searcher",
    .tp_doc = "One search's tree walk: called as negamax(own, opp, kings, black, key, depth, alpha, beta, ply, quiet).",
    .tp_basicsize = sizeof(SearcherObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Searcher_init,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_call = (ternaryfunc)Searcher_call,
    .tp_getset = Searcher_getset,
};

/* -- module functions ---------------------------------------------------------------- */

static PyObject *py_perft(PyObject *self, PyObject *args) {
    unsigned long own, opp, kings;
    int black, depth, men_backward = 0, compulsory = 1;
    if (!PyArg_ParseTuple(args, "kkkpi|pp", &own, &opp, &kings, &black, &depth, &men_backward, &compulsory))
        return NULL;
    int error = 0;
    uint64_t n;
    Py_BEGIN_ALLOW_THREADS n = perft((u32)own, (u32)opp, (u32)kings, black, depth, men_backward, compulsory, &error);
    Py_END_ALLOW_THREADS if (error) {
        PyErr_SetString(PyExc_RuntimeError, "more moves in a position than the native generator holds");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *moves_list(Move *moves, int n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(kkk)", (unsigned long)moves[i].frm, (unsigned long)moves[i].to,
                                    (unsigned long)moves[i].taken);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

static PyObject *py_captures(PyObject *self, PyObject *args) {
    unsigned long own, opp, kings;
    int black, men_backward = 0;
    if (!PyArg_ParseTuple(args, "kkkp|p", &own, &opp, &kings, &black, &men_backward)) return NULL;
    Move moves[MAX_MOVES];
    int n = capture_moves((u32)own, (u32)opp, (u32)kings, black, men_backward, moves, MAX_MOVES);
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "more capture routes than the native generator holds");
        return NULL;
    }
    return moves_list(moves, n);
}

static PyObject *py_quiet(PyObject *self, PyObject *args) {
    unsigned long own, opp, kings;
    int black;
    if (!PyArg_ParseTuple(args, "kkkp", &own, &opp, &kings, &black)) return NULL;
    Move moves[MAX_MOVES];
    int n = quiet_moves((u32)own, (u32)opp, (u32)kings, black, moves, 0, MAX_MOVES);
    return moves_list(moves, n);
}

static PyObject *py_evaluate(PyObject *self, PyObject *args) {
    unsigned long own, opp, kings;
    int black, mobility;
    if (!PyArg_ParseTuple(args, "kkkpi", &own, &opp, &kings, &black, &mobility)) return NULL;
    if (!weights_set) {
        PyErr_SetString(PyExc_RuntimeError, "the evaluation's weights were not set (set_weights)");
        return NULL;
    }
    return PyLong_FromLong(evaluate((u32)own, (u32)opp, (u32)kings, black, mobility));
}

static int read_ints(PyObject *dict, const char *name, int *out, Py_ssize_t n) {
    PyObject *seq = PyDict_GetItemString(dict, name);
    if (!seq) {
        PyErr_Format(PyExc_KeyError, "the weights have no %s", name);
        return -1;
    }
    PyObject *fast = PySequence_Fast(seq, name);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd numbers, not %zd", name, PySequence_Fast_GET_SIZE(fast), n);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int read_int(PyObject *dict, const char *name, int *out) {
    PyObject *v = PyDict_GetItemString(dict, name);
    if (!v) {
        PyErr_Format(PyExc_KeyError, "the weights have no %s", name);
        return -1;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

static PyObject *py_set_weights(PyObject *self, PyObject *dict) {
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "set_weights takes a dict");
        return NULL;
    }
    Weights w;
    if (read_int(dict, "man_value", &w.man_value) || read_int(dict, "king_value", &w.king_value) ||
        read_int(dict, "trade_bonus", &w.trade_bonus) || read_int(dict, "mobility", &w.mobility) ||
        read_int(dict, "the_move", &w.the_move) || read_int(dict, "drive", &w.drive) ||
        read_int(dict, "double_corner", &w.double_corner) || read_int(dict, "trapped_king", &w.trapped_king) ||
        read_int(dict, "ending_move", &w.ending_move) || read_int(dict, "bridge", &w.bridge) ||
        read_ints(dict, "black_men", &w.black_men[0][0], 99) || read_ints(dict, "white_men", &w.white_men[0][0], 99) ||
        read_ints(dict, "black_kings", &w.black_kings[0][0], 99) ||
        read_ints(dict, "white_kings", &w.white_kings[0][0], 99) ||
        read_ints(dict, "black_runaway", w.black_runaway, 33) || read_ints(dict, "white_runaway", w.white_runaway, 33))
        return NULL;
    int *read = PyMem_Malloc(sizeof(int) * 3 * 4 * PATTERN_SIZE);
    if (!read) return PyErr_NoMemory();
    if (read_ints(dict, "patterns", read, 3 * 4 * PATTERN_SIZE)) {
        PyMem_Free(read);
        return NULL;
    }
    for (int i = 0; i < 3 * 4 * PATTERN_SIZE; i++) {
        if (read[i] < INT16_MIN || read[i] > INT16_MAX) {
            PyMem_Free(read);
            PyErr_SetString(PyExc_ValueError, "a pattern's weight is out of the range of 16 bits");
            return NULL;
        }
        (&patterns[0][0][0])[i] = (int16_t)read[i];
    }
    int any = 0;
    for (int i = 0; i < 3 * 4 * PATTERN_SIZE && !any; i++) any = read[i] != 0;
    PyMem_Free(read);
    patterns_on = any;
    W = w;
    weights_set = 1;
    Py_RETURN_NONE;
}

static PyObject *py_set_keys(PyObject *self, PyObject *args) {
    /* The Zobrist keys of rules/engine/zobrist.py: men and kings by colour and square. */
    PyObject *man, *king, *side;
    if (!PyArg_ParseTuple(args, "OOO", &man, &king, &side)) return NULL;
    for (int c = 0; c < 2; c++)
        for (int s = 0; s <= 32; s++) {
            PyObject *mrow = PySequence_GetItem(man, c), *krow = PySequence_GetItem(king, c);
            if (!mrow || !krow) {
                Py_XDECREF(mrow);
                Py_XDECREF(krow);
                return NULL;
            }
            PyObject *mv = PySequence_GetItem(mrow, s), *kv = PySequence_GetItem(krow, s);
            Py_DECREF(mrow);
            Py_DECREF(krow);
            if (!mv || !kv) {
                Py_XDECREF(mv);
                Py_XDECREF(kv);
                return NULL;
            }
            zobrist_man[c][s] = PyLong_AsUnsignedLongLongMask(mv);
            zobrist_king[c][s] = PyLong_AsUnsignedLongLongMask(kv);
            Py_DECREF(mv);
            Py_DECREF(kv);
            if (PyErr_Occurred()) return NULL;
        }
    zobrist_side = PyLong_AsUnsignedLongLongMask(side);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"perft", py_perft, METH_VARARGS,
     "perft(own, opp, kings, black, depth, men_backward=False, compulsory=True): leaves, every route counted."},
    {"captures", py_captures, METH_VARARGS, "captures(own, opp, kings, black, men_backward=False): (from, to, taken)."},
    {"quiet_moves", py_quiet, METH_VARARGS, "quiet_moves(own, opp, kings, black): (from, to, 0) of every step."},
    {"evaluate", py_evaluate, METH_VARARGS, "evaluate(own, opp, kings, black, own_mobility): the static score."},
    {"set_weights", py_set_weights, METH_O, "The evaluation's weights, from rules.engine.evaluation."},
    {"set_keys", py_set_keys, METH_VARARGS, "The Zobrist keys, from rules.engine.zobrist."},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "crownhead.rules.engine._native", "The native search core (see rules/engine/_native.c).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    init_geometry();
    init_patterns();
    init_probe_tables();
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&SearcherType) < 0 || PyType_Ready(&ProbeType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&TableType);
    Py_INCREF(&SearcherType);
    Py_INCREF(&ProbeType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0 ||
        PyModule_AddObject(m, "Probe", (PyObject *)&ProbeType) < 0 ||
        PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0 ||
        PyModule_AddIntConstant(m, "ENTRY_BYTES", (long)sizeof(Entry)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
