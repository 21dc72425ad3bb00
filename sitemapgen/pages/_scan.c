/* The optional compiled scanner: `deciding_tags`, the pure-Python `scanner.read_fast`'s
 * finding of a plain head's deciding tags, done in one pass in C; `deciding_tags_utf8`, the same
 * from a head's UTF-8 bytes, undecoded; `read_tag`, a found tag's attributes; for the walk,
 * `listing`, `lister.listing` of a directory from `readdir` alone, and `walk`, many directories
 * walked as `walk.Walk` walks them, in one call; `read_head`, a page's head read as
 * `head.read_head_at` reads it, its open, status, reads and close in one call; heads off,
 * `mtime_block`, a run of plain pages listed as `quick.MtimeOnly.batch` lists them; and heads on,
 * `head_block`, the same with each page's head read and scanned, every tag it finds known or
 * judged by Python (`quick.HeadRead`) to say nothing the page's row would show.
 *
 * It answers only where it can answer exactly as the Python scanner does, and hands every
 * other head back (None), so the Python scanner reads it as before: an accelerator, never a
 * second reader; and so for a directory `walk` does not walk, and a page `mtime_block` or
 * `head_block` does not list. `tests/pages/test_scan_c.py` holds the two to the same answers (and
 * the listing to `os.scandir`'s, which lists any directory it hands back), as
 * `tests/pages/test_walk_c.py` does the walks, `tests/pipeline/test_quick_c.py` the heads-off
 * batches and `tests/pipeline/test_quick_heads_c.py` the heads-on ones.
 *
 * Plain markup, as `scanner._PLAIN_HEAD` and `scanner._SKIPPED` define it, is read left to
 * right: text (any characters but '<'), plain comments, script and style elements (skipped
 * whole), a doctype, end tags, and start tags whose attributes are plain. Where the Python
 * patterns' Unicode white space (`\s`) could differ from ASCII white space inside a tag, or
 * a character could lower-case to ASCII (U+0130, U+212A) or is NUL, this hands the head
 * back rather than decide. A meta or link start tag whose text holds one of `marks` (lower
 * case; '&' is one of them) is a deciding tag: its text is in the answer, in page order.
 *
 * It spells no word of the Python side's tables: the modules that use it tell it theirs at
 * import (`configure_heads`: `scanner.py`, the tags that may decide and the elements skipped
 * whole, from the signal table; `configure_listing`: `lister.py`, the index names, page
 * suffixes and entry kinds; `configure_reading`: `head.py`, what ends a head and the reads' sizes),
 * and it refuses to answer until told. So a word added to a table is one edit, there; telling
 * costs nothing per call, and the C stays one plain file, with no generated header to build.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_MARKS 16

typedef struct {
    const Py_UCS1 *text[MAX_MARKS];
    Py_ssize_t len[MAX_MARKS];
    int count;
    unsigned int first[256];  /* for each character below 256, the marks it starts, in any case (bit m: mark m) */
    unsigned int second[256]; /* for each character below 256, the marks it is the second of, in any case */
    unsigned int one;         /* the marks of one character */
#if defined(__SSE2__)
    /* The marks as `any_mark_bytes` looks for them, each byte with its 0x20 bit set (one byte for
     * both cases of a letter), in sixteen copies: the one-character marks, and the first two
     * characters of the others. */
    __m128i ones[MAX_MARKS], firsts[MAX_MARKS], seconds[MAX_MARKS];
    int one_count, pair_count;
#endif
} Marks;

#define MAX_NAMES 4
#define MAX_NAME 16

/* A word of the Python side's tables: lower-case printable ASCII, shorter than MAX_NAME. */
typedef struct {
    char text[MAX_NAME];
    Py_ssize_t len;
} Name;

/* What the Python side told the module at import (see `configure_heads`, `configure_listing`,
 * `configure_reading`): it
 * spells no word of its own, so that a word added to a table is one edit there. Zero (untold)
 * until then. */
typedef struct {
    int heads_told;
    Name signal[MAX_NAMES]; /* `signals.SIGNAL_TAGS`: the tags whose text may decide */
    int signals;
    Name raw[MAX_NAMES]; /* `signals.RAW_TEXT`: the elements skipped whole */
    int raws;
    Name text[MAX_NAMES]; /* `labels.TITLE`: the elements whose text a scan gives, when asked */
    int texts;
    Py_ssize_t longest; /* the longest of those names */
    int listing_told;
    Name index[MAX_NAMES]; /* `urls.INDEX_NAMES`, in rank order */
    int indexes;
    Name suffix[MAX_NAMES]; /* `urls.PAGE_SUFFIXES` */
    int suffixes;
    char kind[4]; /* `lister.DIR, PAGE, PAGE_LINK, OTHER_LINK` */
    int reading_told;
    Name end[MAX_NAMES]; /* `head._HEAD_ENDS`: what ends a head, each starting with '<' */
    int ends;
    Py_ssize_t first, step; /* `head._FIRST_READ`, `head._READ_STEP`: a head's first read, and each after */
} Told;

/* The words of a tuple of 1 to MAX_NAMES of them, into `names`; -1 with ValueError naming `what`
 * if they are not such words, or hold a character of `refused`. */
static int read_names(PyObject *words, Name *names, int *count, const char *what, const char *refused) {
    if (!PyTuple_Check(words) || PyTuple_GET_SIZE(words) < 1 || PyTuple_GET_SIZE(words) > MAX_NAMES) {
        PyErr_Format(PyExc_ValueError, "%s: a tuple of 1 to %d words", what, MAX_NAMES);
        return -1;
    }
    *count = (int)PyTuple_GET_SIZE(words);
    for (int m = 0; m < *count; m++) {
        PyObject *word = PyTuple_GET_ITEM(words, m);
        if (!PyUnicode_Check(word) || !PyUnicode_IS_ASCII(word) || PyUnicode_GET_LENGTH(word) == 0 ||
            PyUnicode_GET_LENGTH(word) >= MAX_NAME) {
            PyErr_Format(PyExc_ValueError, "%s: words of ASCII, 1 to %d characters", what, MAX_NAME - 1);
            return -1;
        }
        const Py_UCS1 *text = PyUnicode_1BYTE_DATA(word);
        names[m].len = PyUnicode_GET_LENGTH(word);
        for (Py_ssize_t k = 0; k < names[m].len; k++) {
            Py_UCS1 c = text[k];
            if (c <= ' ' || c >= 0x7f || (c >= 'A' && c <= 'Z') || strchr(refused, c) != NULL) {
                PyErr_Format(PyExc_ValueError, "%s: %R holds a character it may not", what, word);
                return -1;
            }
            names[m].text[k] = (char)c;
        }
    }
    return 0;
}

static inline int ascii_space(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Inside a tag's markup (not a quoted value): a character the Python patterns might read
 * otherwise than as printable ASCII or ASCII white space. */
static inline int odd(Py_UCS4 c) {
    return (c < 0x20 && !ascii_space(c)) || c >= 0x7f;
}

/* Anywhere: NUL (the Python scanner hands such a head to bs4), or a character whose lower
 * case is longer (U+0130) or ASCII (U+212A). */
static inline int refused(Py_UCS4 c) {
    return c == 0 || c == 0x130 || c == 0x212a;
}

static inline int ascii_alpha(Py_UCS4 c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline Py_UCS4 ascii_lower(Py_UCS4 c) {
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* The first '<' at or after `i`, or `n`. */
static inline Py_ssize_t next_open_ucs1(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n) {
    const void *at = i < n ? memchr(s + i, '<', (size_t)(n - i)) : NULL;
    return at == NULL ? n : (const Py_UCS1 *)at - s;
}

static inline Py_ssize_t next_open_ucs2(const Py_UCS2 *s, Py_ssize_t i, Py_ssize_t n) {
    while (i < n && s[i] != '<')
        i++;
    return i;
}

static inline Py_ssize_t next_open_ucs4(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t n) {
    while (i < n && s[i] != '<')
        i++;
    return i;
}

/* Whether NUL, U+0130 or U+212A is in the text (only NUL fits in one byte). */
static inline int any_refused_ucs1(const Py_UCS1 *s, Py_ssize_t n) {
    return memchr(s, 0, (size_t)n) != NULL;
}

static inline int any_refused_ucs2(const Py_UCS2 *s, Py_ssize_t n) {
    int found = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        found |= refused(s[k]);
    return found;
}

static inline int any_refused_ucs4(const Py_UCS4 *s, Py_ssize_t n) {
    int found = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        found |= refused(s[k]);
    return found;
}

/* The index of the lowest bit set in `bits` (not 0). */
static inline int lowest_bit(unsigned int bits) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(bits);
#else
    int m = 0;
    while (!(bits & 1u))
        bits >>= 1, m++;
    return m;
#endif
}

/* Whether NUL, U+0130 (C4 B0) or U+212A (E2 84 AA) is in UTF-8 bytes. */
static inline int any_refused_utf8(const Py_UCS1 *s, Py_ssize_t n) {
    if (memchr(s, 0, (size_t)n) != NULL)
        return 1;
    for (const Py_UCS1 *at = s; (at = memchr(at, 0xC4, (size_t)(s + n - at))) != NULL; at++)
        if (at + 1 < s + n && at[1] == 0xB0)
            return 1;
    for (const Py_UCS1 *at = s; (at = memchr(at, 0xE2, (size_t)(s + n - at))) != NULL; at++)
        if (at + 2 < s + n && at[1] == 0x84 && at[2] == 0xAA)
            return 1;
    return 0;
}

/* What ends an attribute's name, as `scanner._ATTR_TEXT` reads it (a name is one character or more). */
static inline int ends_name(Py_UCS4 c) {
    return ascii_space(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '/' || c == '=';
}

/* What ends an unquoted attribute value, as `scanner._ATTR_TEXT` reads it. */
static inline int ends_unquoted(Py_UCS4 c) {
    return ascii_space(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '=' || c == '`';
}

/* `end` := the end of the run of characters from `start` (each READ(k)) that ENDS does not end;
 * an `odd` one in it runs BAIL. */
#define PLAIN_RUN(end, start, n, READ, ENDS, BAIL)                                             \
    for ((end) = (start); (end) < (n) && !ENDS(READ(end)); (end)++)                            \
        if (odd(READ(end)))                                                                    \
            BAIL;

#define CHAR_OF_S(k) s[k]

/* In a scan: on past the first '>' from `from` (a doctype's or an end tag's), or hand the head
 * back if a '<' or the end comes first. */
#define PAST_GT(from)                                                                          \
    {                                                                                          \
        Py_ssize_t gt_ = (from);                                                               \
        while (gt_ < n && s[gt_] != '>' && s[gt_] != '<')                                      \
            gt_++;                                                                             \
        if (gt_ >= n || s[gt_] == '<')                                                         \
            goto hand_back;                                                                    \
        i = gt_ + 1;                                                                           \
        continue;                                                                              \
    }

/* `ends_unquoted`, or a '&' (a character reference: Python's to read). */
static inline int ends_unquoted_or_reference(Py_UCS4 c) {
    return ends_unquoted(c) || c == '&';
}

enum { NAME_OTHER, NAME_SIGNAL, NAME_RAW, NAME_UNSURE, NAME_TEXT };

/* What a start tag's name (`len` characters, lower case in `name` as far as `told->longest`)
 * names: a raw-text element, a signal's tag, another; or NAME_UNSURE for one that only starts as
 * a raw-text element's ("style-x" and the like: the Python scanner's to say). */
static inline int name_kind(const Told *told, const char *name, Py_ssize_t len, int want_text) {
    for (int m = 0; m < told->raws; m++) {
        const Name *raw = &told->raw[m];
        if (len >= raw->len && memcmp(name, raw->text, (size_t)raw->len) == 0)
            return len == raw->len ? NAME_RAW : NAME_UNSURE;
    }
    for (int m = 0; m < told->signals; m++) {
        const Name *tag = &told->signal[m];
        if (len == tag->len && memcmp(name, tag->text, (size_t)len) == 0)
            return NAME_SIGNAL;
    }
    for (int m = 0; want_text && m < told->texts; m++) { /* only when asked: a scan costs what it did */
        const Name *tag = &told->text[m];
        if (len == tag->len && memcmp(name, tag->text, (size_t)len) == 0)
            return NAME_TEXT;
    }
    return NAME_OTHER;
}

/* In a scan: `u` := the first `quote` at or after `from` (or `n`), or hand the head back if a
 * '<' or '>' comes before it (a quoted value holds neither). One character at a time... */
#define QUOTED_END_LOOP(u, from, quote)                                                        \
    for ((u) = (from); (u) < n && s[u] != (quote); (u)++)                                      \
        if (s[u] == '<' || s[u] == '>')                                                        \
            goto hand_back;

/* ...or, on one byte a character, by `quoted_end_bytes`: a description's value is a few hundred bytes. */
#define QUOTED_END_BYTES(u, from, quote)                                                       \
    {                                                                                          \
        (u) = quoted_end_bytes(s, (from), n, (Py_UCS1)(quote));                                \
        if ((u) < n && s[u] != (quote))                                                        \
            goto hand_back;                                                                    \
    }

/* The first `quote`, '<' or '>' at or after `from` in the bytes `s` (length n), or `n`: sixteen
 * bytes at a time where SSE2 is (every x86-64). */
static inline Py_ssize_t quoted_end_bytes(const Py_UCS1 *s, Py_ssize_t from, Py_ssize_t n, Py_UCS1 quote) {
    Py_ssize_t at = from;
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8((char)quote), lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>');
    for (; at + 16 <= n; at += 16) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(s + at));
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(chunk, q),
                                   _mm_or_si128(_mm_cmpeq_epi8(chunk, lt), _mm_cmpeq_epi8(chunk, gt)));
        unsigned int bits = (unsigned int)_mm_movemask_epi8(hit);
        if (bits != 0)
            return at + lowest_bit(bits);
    }
#endif
    while (at < n && s[at] != quote && s[at] != '<' && s[at] != '>')
        at++;
    return at;
}

/* Whether one of `marks` starts at `at` of `s` and ends by `end` (in ASCII letters of any case):
 * the marks that start with its character, and have the next after it (or are that character
 * alone), each compared. Once for each kind of string. */
#define DEFINE_MARK_AT(NAME, T)                                                                \
    static inline int NAME(const T *s, Py_ssize_t at, Py_ssize_t end, const Marks *marks) {   \
        Py_UCS4 c1 = s[at], c2 = s[at + 1];                                                    \
        unsigned int starting = c1 < 256 ? marks->first[c1] : 0;                               \
        if (starting == 0)                                                                     \
            return 0;                                                                          \
        starting &= marks->one | (c2 < 256 ? marks->second[c2] : 0);                           \
        while (starting != 0) {                                                                \
            int m = lowest_bit(starting);                                                      \
            starting &= starting - 1;                                                          \
            const Py_UCS1 *word = marks->text[m];                                              \
            Py_ssize_t len = marks->len[m];                                                    \
            if (at + len > end)                                                                \
                continue;                                                                      \
            Py_ssize_t k = 1;                                                                  \
            while (k < len && ascii_lower(s[at + k]) == word[k])                               \
                k++;                                                                           \
            if (k == len)                                                                      \
                return 1;                                                                      \
        }                                                                                      \
        return 0;                                                                              \
    }                                                                                          \
    /* Whether one of `marks` starts in `s` from `from` and ends by `end` (`s[end]` is '>'). */ \
    static inline int NAME##_any(const T *s, Py_ssize_t from, Py_ssize_t end, const Marks *marks) { \
        for (Py_ssize_t at = from; at < end; at++)                                             \
            if (NAME(s, at, end, marks))                                                       \
                return 1;                                                                      \
        return 0;                                                                              \
    }
DEFINE_MARK_AT(mark_at_ucs1, Py_UCS1)
DEFINE_MARK_AT(mark_at_ucs2, Py_UCS2)
DEFINE_MARK_AT(mark_at_ucs4, Py_UCS4)

/* `mark_at_ucs1_any`, sixteen bytes at a time where SSE2 is (every x86-64): only the bytes that
 * may start a mark are looked at, found by comparing each byte and the next, their 0x20 bit set
 * (one byte for both cases of a letter), with the marks' first two (`Marks.firsts`). Few bytes of a
 * tag pass. */
static inline int any_mark_bytes(const Py_UCS1 *s, Py_ssize_t from, Py_ssize_t end, const Marks *marks) {
    Py_ssize_t at = from;
#if defined(__SSE2__)
    const __m128i case_bit = _mm_set1_epi8(0x20);
    for (; at + 16 <= end; at += 16) { /* s[end] is the tag's '>': the load of the next bytes stays in `s` */
        __m128i first = _mm_or_si128(_mm_loadu_si128((const __m128i *)(s + at)), case_bit);
        __m128i second = _mm_or_si128(_mm_loadu_si128((const __m128i *)(s + at + 1)), case_bit);
        __m128i hit = _mm_setzero_si128();
        for (int k = 0; k < marks->one_count; k++)
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(first, marks->ones[k]));
        for (int k = 0; k < marks->pair_count; k++)
            hit = _mm_or_si128(hit, _mm_and_si128(_mm_cmpeq_epi8(first, marks->firsts[k]),
                                                  _mm_cmpeq_epi8(second, marks->seconds[k])));
        unsigned int bits = (unsigned int)_mm_movemask_epi8(hit);
        while (bits != 0) {
            if (mark_at_ucs1(s, at + lowest_bit(bits), end, marks))
                return 1;
            bits &= bits - 1;
        }
    }
#endif
    return mark_at_ucs1_any(s, at, end, marks);
}

/* The scan, once per string kind, and once more asked for titles (WANT_TEXT 1: a constant, so the
 * scan of a build without them compiles as if titles did not exist, branch and all): the answer (a
 * new list), Py_None (a new reference: ask the Python scanner), or NULL with an exception set. */
#define DEFINE_SCAN(NAME, T, WANT_TEXT)                                                                   \
    static PyObject *NAME(PyObject *str, const T *s, Py_ssize_t n, const Marks *marks, const Told *told) { \
        (void)str;                                                                             \
        PyObject *found = PyList_New(0);                                                       \
        if (found == NULL)                                                                     \
            return NULL;                                                                       \
        if (ANY_REFUSED(s, n))                                                                 \
            goto hand_back;                                                                    \
        Py_ssize_t i = 0;                                                                      \
        for (;;) {                                                                             \
            i = NEXT_OPEN(s, i, n);                                                            \
            if (i >= n)                                                                        \
                break;                                                                         \
            if (i + 1 >= n)                                                                    \
                goto hand_back;                                                                \
            Py_UCS4 c = s[i + 1];                                                              \
            if (c == '!') {                                                                    \
                Py_ssize_t j = i + 4;                                                          \
                if (j <= n && s[i + 2] == '-' && s[i + 3] == '-') {                            \
                    /* a plain comment: not <!--> or <!--->, no "--" before its "-->" */      \
                    if (j < n && s[j] == '>')                                                  \
                        goto hand_back;                                                        \
                    if (j + 1 < n && s[j] == '-' && s[j + 1] == '>')                           \
                        goto hand_back;                                                        \
                    while (j + 1 < n && !(s[j] == '-' && s[j + 1] == '-')) {                   \
                        j++;                                                                   \
                    }                                                                          \
                    if (j + 2 >= n || s[j + 2] != '>')                                         \
                        goto hand_back;                                                        \
                    i = j + 3;                                                                 \
                    continue;                                                                  \
                }                                                                              \
                static const char doctype[] = "doctype";                                       \
                if (i + 9 > n)                                                                 \
                    goto hand_back;                                                            \
                for (int k = 0; k < 7; k++)                                                    \
                    if (ascii_lower(s[i + 2 + k]) != (Py_UCS4)doctype[k])                      \
                        goto hand_back;                                                        \
                PAST_GT(i + 9);                                                                \
            }                                                                                  \
            if (c == '/') {                                                                    \
                if (i + 2 >= n || !ascii_alpha(s[i + 2]))                                      \
                    goto hand_back;                                                            \
                PAST_GT(i + 3);                                                                \
            }                                                                                  \
            if (!ascii_alpha(c))                                                               \
                goto hand_back;                                                                \
            /* a start tag: its name */                                                        \
            Py_ssize_t name_end = i + 1;                                                       \
            while (name_end < n) {                                                             \
                Py_UCS4 d = s[name_end];                                                       \
                if (ascii_space(d) || d == '/' || d == '>')                                    \
                    break;                                                                     \
                if (d == '<' || odd(d))                                                        \
                    goto hand_back;                                                            \
                name_end++;                                                                    \
            }                                                                                  \
            Py_ssize_t name_len = name_end - i - 1;                                            \
            char name[MAX_NAME];                                                               \
            for (Py_ssize_t k = 0; k < name_len && k < told->longest; k++)                     \
                name[k] = (char)ascii_lower(s[i + 1 + k]);                                     \
            int kind = name_kind(told, name, name_len, WANT_TEXT);                                 \
            if (kind == NAME_UNSURE)                                                           \
                goto hand_back;                                                                \
            /* its attributes, each plain, up to its '>' (at `gt`) */                          \
            Py_ssize_t p = name_end, gt;                                                       \
            int self_closing = 0;                                                              \
            for (;;) {                                                                         \
                Py_ssize_t q = p;                                                              \
                while (q < n && ascii_space(s[q]))                                             \
                    q++;                                                                       \
                if (q >= n)                                                                    \
                    goto hand_back;                                                            \
                Py_UCS4 d = s[q];                                                              \
                if (d == '>') {                                                                \
                    gt = q;                                                                    \
                    break;                                                                     \
                }                                                                              \
                if (d == '/') {                                                                \
                    if (q + 1 < n && s[q + 1] == '>') {                                        \
                        gt = q + 1;                                                            \
                        self_closing = 1;                                                      \
                        break;                                                                 \
                    }                                                                          \
                    goto hand_back;                                                            \
                }                                                                              \
                if (q == p || odd(d))                                                          \
                    goto hand_back; /* no white space before the attribute, or an odd one */  \
                Py_ssize_t r;                                                                  \
                PLAIN_RUN(r, q, n, CHAR_OF_S, ends_name, goto hand_back)                       \
                if (r == q)                                                                    \
                    goto hand_back;                                                            \
                Py_ssize_t t = r;                                                              \
                while (t < n && ascii_space(s[t]))                                             \
                    t++;                                                                       \
                if (t < n && s[t] == '=') {                                                    \
                    t++;                                                                       \
                    while (t < n && ascii_space(s[t]))                                         \
                        t++;                                                                   \
                    if (t >= n)                                                                \
                        goto hand_back;                                                        \
                    Py_UCS4 quote = s[t];                                                      \
                    if (quote == '"' || quote == '\'') {                                       \
                        Py_ssize_t u;                                                          \
                        QUOTED_END(u, t + 1, quote);                                           \
                        if (u >= n)                                                            \
                            goto hand_back;                                                    \
                        p = u + 1;                                                             \
                    } else {                                                                   \
                        Py_ssize_t u;                                                          \
                        PLAIN_RUN(u, t, n, CHAR_OF_S, ends_unquoted, goto hand_back)           \
                        if (u == t)                                                            \
                            goto hand_back;                                                    \
                        p = u;                                                                 \
                    }                                                                          \
                } else {                                                                       \
                    p = r;                                                                     \
                }                                                                              \
            }                                                                                  \
            if (kind == NAME_RAW) {                                                            \
                /* a script or style element, skipped whole: up to the first end tag of its   \
                 * name in ASCII letters of any case, white space as Python's \s around it */ \
                if (self_closing)                                                              \
                    goto hand_back;                                                            \
                Py_ssize_t u = gt + 1;                                                         \
                for (;;) {                                                                     \
                    u = NEXT_OPEN(s, u, n);                                                    \
                    if (u >= n)                                                                \
                        goto hand_back;                                                        \
                    Py_ssize_t v = u + 1;                                                      \
                    if (v < n && s[v] == '/') {                                                \
                        v++;                                                                   \
                        while (v < n && SPACE(s[v]))                                           \
                            v++;                                                               \
                        if (v < n && UNSURE_SPACE(s[v]))                                       \
                            goto hand_back;                                                    \
                        Py_ssize_t k = 0;                                                      \
                        while (k < name_len && v + k < n && ascii_lower(s[v + k]) == (Py_UCS4)name[k]) \
                            k++;                                                               \
                        if (k == name_len) {                                                   \
                            Py_ssize_t w = v + k;                                              \
                            while (w < n && SPACE(s[w]))                                       \
                                w++;                                                           \
                            if (w < n && UNSURE_SPACE(s[w]))                                   \
                                goto hand_back;                                                \
                            if (w < n && s[w] == '>') {                                        \
                                i = w + 1;                                                     \
                                break;                                                         \
                            }                                                                  \
                        }                                                                      \
                    }                                                                          \
                    u++;                                                                       \
                }                                                                              \
                continue;                                                                      \
            }                                                                                  \
            if (kind == NAME_TEXT) {                                              \
                /* a title: its start tag and its text, which must run to its own end tag         \
                 * ("</title", ASCII white space but \v, '>'); its name ended as html.parser's; no \
                 * '/' before its '>', not even an unquoted value's (`labels._TITLE`'s test) */    \
                if (self_closing || s[name_end] == '\v' || s[gt - 1] == '/')                    \
                    goto hand_back;                                                            \
                Py_ssize_t u = NEXT_OPEN(s, gt + 1, n);                                        \
                if (u + 2 + name_len >= n || s[u + 1] != '/')                                  \
                    goto hand_back;                                                            \
                for (Py_ssize_t k = 0; k < name_len; k++)                                      \
                    if (ascii_lower(s[u + 2 + k]) != (Py_UCS4)name[k])                         \
                        goto hand_back;                                                        \
                Py_ssize_t w = u + 2 + name_len;                                               \
                while (w < n && ascii_space(s[w]) && s[w] != '\v')                             \
                    w++;                                                                       \
                if (w >= n || s[w] != '>')                                                     \
                    goto hand_back;                                                            \
                PyObject *tag = TAG_TEXT(str, s, i, u);                                        \
                if (tag == NULL || PyList_Append(found, tag) < 0) {                            \
                    Py_XDECREF(tag);                                                           \
                    Py_DECREF(found);                                                          \
                    return NULL;                                                               \
                }                                                                              \
                Py_DECREF(tag);                                                                \
                i = w + 1;                                                                     \
                continue;                                                                      \
            }                                                                                  \
            if (kind == NAME_SIGNAL) {                                                         \
                int deciding = ANY_MARK(s, i + 1, gt);                                         \
                if (deciding) {                                                                \
                    PyObject *tag = TAG_TEXT(str, s, i, gt + 1);                               \
                    if (tag == NULL || PyList_Append(found, tag) < 0) {                        \
                        Py_XDECREF(tag);                                                       \
                        Py_DECREF(found);                                                      \
                        return NULL;                                                           \
                    }                                                                          \
                    Py_DECREF(tag);                                                            \
                }                                                                              \
            }                                                                                  \
            i = gt + 1;                                                                        \
        }                                                                                      \
        return found;                                                                          \
    hand_back:                                                                                 \
        Py_DECREF(found);                                                                      \
        Py_RETURN_NONE;                                                                        \
    }

/* A str's scan: Python's \\s is Py_UNICODE_ISSPACE; a tag's text is a substring. */
#define SPACE(c) Py_UNICODE_ISSPACE(c)
#define UNSURE_SPACE(c) 0
#define TAG_TEXT(str, s, start, end) PyUnicode_Substring(str, start, end)
#define NEXT_OPEN(s, i, n) next_open_ucs1(s, i, n)
#define ANY_MARK(s, from, end) any_mark_bytes(s, from, end, marks)
#define ANY_REFUSED(s, n) any_refused_ucs1(s, n)
#define QUOTED_END QUOTED_END_BYTES
DEFINE_SCAN(scan_ucs1, Py_UCS1, 0)
DEFINE_SCAN(scan_ucs1_titles, Py_UCS1, 1)
#undef NEXT_OPEN
#undef ANY_MARK
#undef ANY_REFUSED
#undef QUOTED_END
#define NEXT_OPEN(s, i, n) next_open_ucs2(s, i, n)
#define ANY_MARK(s, from, end) mark_at_ucs2_any(s, from, end, marks)
#define ANY_REFUSED(s, n) any_refused_ucs2(s, n)
#define QUOTED_END QUOTED_END_LOOP
DEFINE_SCAN(scan_ucs2, Py_UCS2, 0)
DEFINE_SCAN(scan_ucs2_titles, Py_UCS2, 1)
#undef NEXT_OPEN
#undef ANY_REFUSED
#define NEXT_OPEN(s, i, n) next_open_ucs4(s, i, n)
#undef ANY_MARK
#define ANY_MARK(s, from, end) mark_at_ucs4_any(s, from, end, marks)
#define ANY_REFUSED(s, n) any_refused_ucs4(s, n)
DEFINE_SCAN(scan_ucs4, Py_UCS4, 0)
DEFINE_SCAN(scan_ucs4_titles, Py_UCS4, 1)
#undef NEXT_OPEN
#undef ANY_MARK
#undef ANY_REFUSED
#undef QUOTED_END
#undef SPACE
#undef UNSURE_SPACE
#undef TAG_TEXT

/* UTF-8 bytes' scan: the same, on the bytes, for the text they decode to (`decode_head`, with
 * "replace"): markup is ASCII, and every other character is bytes of 0x80 and above, which the
 * markup's checks refuse as they refuse the character. Where a byte of 0x80 or above stands where
 * Python's \\s could match its character (U+0085, U+00A0, ...), the head is handed back. A tag's
 * text is its bytes decoded (a tag starts and ends with an ASCII byte, so it splits no character). */
#define SPACE(c) ((c) < 0x80 && Py_UNICODE_ISSPACE(c))
#define UNSURE_SPACE(c) ((c) >= 0x80)
#define TAG_TEXT(str, s, start, end) PyUnicode_DecodeUTF8((const char *)(s) + (start), (end) - (start), "replace")
#define NEXT_OPEN(s, i, n) next_open_ucs1(s, i, n)
#define ANY_MARK(s, from, end) any_mark_bytes(s, from, end, marks)
#define ANY_REFUSED(s, n) any_refused_utf8(s, n)
#define QUOTED_END QUOTED_END_BYTES
DEFINE_SCAN(scan_utf8, Py_UCS1, 0)
DEFINE_SCAN(scan_utf8_titles, Py_UCS1, 1)

/* The module's words for heads, or NULL with RuntimeError if it has not been told them. */
static const Told *heads_told(PyObject *module) {
    const Told *told = PyModule_GetState(module);
    if (!told->heads_told) {
        PyErr_SetString(PyExc_RuntimeError, "configure_heads first (scanner.py does, at import)");
        return NULL;
    }
    return told;
}

PyDoc_STRVAR(configure_heads_doc,
             "configure_heads(signal_tags, raw_text, text_tags, /)\n--\n\n"
             "Tell the scans and `read_tag` the names of the tags that may decide (`signals.SIGNAL_TAGS`),\n"
             "of the elements skipped whole (`signals.RAW_TEXT`) and of those whose text a scan gives\n"
             "when asked (`labels.TITLE`), each a tuple of lower-case ASCII words. `scanner` does, at import.");

static PyObject *configure_heads(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    Told *told = PyModule_GetState(module);
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "configure_heads(signal_tags: tuple[str, ...], raw_text: tuple[str, ...], text_tags: tuple[str, ...])");
        return NULL;
    }
    Told taken = *told;
    if (read_names(args[0], taken.signal, &taken.signals, "signal_tags", "/<>") < 0 ||
        read_names(args[1], taken.raw, &taken.raws, "raw_text", "/<>") < 0 ||
        read_names(args[2], taken.text, &taken.texts, "text_tags", "/<>") < 0)
        return NULL;
    taken.longest = 0;
    for (int m = 0; m < taken.signals; m++)
        taken.longest = taken.signal[m].len > taken.longest ? taken.signal[m].len : taken.longest;
    for (int m = 0; m < taken.raws; m++)
        taken.longest = taken.raw[m].len > taken.longest ? taken.raw[m].len : taken.longest;
    for (int m = 0; m < taken.texts; m++)
        taken.longest = taken.text[m].len > taken.longest ? taken.text[m].len : taken.longest;
    taken.heads_told = 1;
    *told = taken;
    Py_RETURN_NONE;
}

/* The marks of a call (a tuple of non-empty lower-case ASCII words), ready to look for. */
static int read_marks(PyObject *words, Marks *marks) {
    memset(marks->first, 0, sizeof marks->first);
    memset(marks->second, 0, sizeof marks->second);
    marks->one = 0;
#if defined(__SSE2__)
    marks->one_count = marks->pair_count = 0;
#endif
    marks->count = (int)PyTuple_GET_SIZE(words);
    if (marks->count > MAX_MARKS) {
        PyErr_SetString(PyExc_ValueError, "too many marks");
        return -1;
    }
    for (int m = 0; m < marks->count; m++) {
        PyObject *word = PyTuple_GET_ITEM(words, m);
        if (!PyUnicode_Check(word) || !PyUnicode_IS_ASCII(word) || PyUnicode_GET_LENGTH(word) == 0) {
            PyErr_SetString(PyExc_ValueError, "marks must be non-empty ASCII words");
            return -1;
        }
        marks->text[m] = PyUnicode_1BYTE_DATA(word);
        marks->len[m] = PyUnicode_GET_LENGTH(word);
        for (Py_ssize_t k = 0; k < marks->len[m]; k++)
            if (marks->text[m][k] >= 'A' && marks->text[m][k] <= 'Z') {
                PyErr_SetString(PyExc_ValueError, "marks must be lower case");
                return -1;
            }
        Py_UCS1 c1 = marks->text[m][0];
        marks->first[c1] |= 1u << m;
        if (c1 >= 'a' && c1 <= 'z')
            marks->first[c1 - 32] |= 1u << m; /* its upper case */
        if (marks->len[m] == 1) {
            marks->one |= 1u << m;
#if defined(__SSE2__)
            marks->ones[marks->one_count++] = _mm_set1_epi8((char)(c1 | 0x20));
#endif
        } else {
            Py_UCS1 c2 = marks->text[m][1];
            marks->second[c2] |= 1u << m;
            if (c2 >= 'a' && c2 <= 'z')
                marks->second[c2 - 32] |= 1u << m;
#if defined(__SSE2__)
            marks->firsts[marks->pair_count] = _mm_set1_epi8((char)(c1 | 0x20));
            marks->seconds[marks->pair_count++] = _mm_set1_epi8((char)(c2 | 0x20));
#endif
        }
    }
    return 0;
}

/* A scan's arguments: the text (of `type`, or a subclass), its marks, read into `marks`, and
 * whether it wants the titles' texts (a third, optional, into `want_text`); -1 with an exception
 * set (TypeError naming `usage`) if they are not that. */
static int read_args(PyObject *const *args, Py_ssize_t nargs, PyTypeObject *type, const char *usage, Marks *marks,
                     int *want_text) {
    if (nargs < 2 || nargs > 3 || !PyObject_TypeCheck(args[0], type) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    *want_text = nargs == 3 ? PyObject_IsTrue(args[2]) : 0;
    if (*want_text < 0)
        return -1;
    return read_marks(args[1], marks);
}

PyDoc_STRVAR(deciding_tags_doc,
             "deciding_tags(text, marks, titles=False, /)\n--\n\n"
             "The text of each meta and link tag of plain head text that holds one of `marks` (a\n"
             "tuple of lower-case ASCII words), in order; with `titles`, each title element's start tag\n"
             "and text too (up to its end tag, which must follow the text); or None: ask the Python scanner.");

static PyObject *deciding_tags(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    const Told *told = heads_told(module);
    if (told == NULL)
        return NULL;
    Marks marks;
    int want_text;
    if (read_args(args, nargs, &PyUnicode_Type, "deciding_tags(text: str, marks: tuple[str, ...], titles: bool = False)",
                  &marks, &want_text) < 0)
        return NULL;
    PyObject *text = args[0];
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return (want_text ? scan_ucs1_titles : scan_ucs1)(text, PyUnicode_1BYTE_DATA(text), n, &marks, told);
    case PyUnicode_2BYTE_KIND:
        return (want_text ? scan_ucs2_titles : scan_ucs2)(text, PyUnicode_2BYTE_DATA(text), n, &marks, told);
    default:
        return (want_text ? scan_ucs4_titles : scan_ucs4)(text, PyUnicode_4BYTE_DATA(text), n, &marks, told);
    }
}

/* Whether `s` (length n) at `at` spells `word` (lower case) in ASCII letters of any case. */
static int spells(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t at, const char *word) {
    for (Py_ssize_t k = 0; word[k]; k++)
        if (at + k >= n || ascii_lower(s[at + k]) != (Py_UCS4)word[k])
            return 0;
    return 1;
}

static inline int byte_space(Py_UCS1 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static inline int label_char(Py_UCS1 c) {
    return ascii_alpha(c) || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' || c == '-';
}

/* `encoding._META_CHARSET.match(s, start)` (n: the prescan's length): the end of its label, or
 * -1; its label's start in *label. */
static Py_ssize_t meta_charset_at(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t start, Py_ssize_t *label) {
    if (!spells(s, n, start, "<meta"))
        return -1;
    /* [^>]+? : the fewest characters, one at least, none of them '>', that let the rest match */
    for (Py_ssize_t p = start + 6; p <= n && s[p - 1] != '>'; p++) {
        if (!spells(s, n, p, "charset"))
            continue;
        Py_ssize_t q = p + 7;
        while (q < n && byte_space(s[q]))
            q++;
        if (q >= n || s[q] != '=')
            continue;
        q++;
        while (q < n && byte_space(s[q]))
            q++;
        if (q < n && (s[q] == '"' || s[q] == '\''))
            q++;
        while (q < n && byte_space(s[q]))
            q++;
        Py_ssize_t end = q;
        while (end < n && label_char(s[end]))
            end++;
        if (end > q) {
            *label = q;
            return end;
        }
    }
    return -1;
}

/* Whether `encoding.sniff_encoding` certainly reads these bytes as UTF-8 with no BOM: no BOM, and
 * the prescan's charset declaration, if any, is "utf-8" or "utf8" (any case). Anything else (a BOM,
 * another label, even one Python reads as UTF-8) is Python's to decide. */
static int surely_utf8(const Py_UCS1 *s, Py_ssize_t n) {
    if ((n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) ||
        (n >= 2 && ((s[0] == 0xFF && s[1] == 0xFE) || (s[0] == 0xFE && s[1] == 0xFF))))
        return 0;
    Py_ssize_t prescan = n < 1024 ? n : 1024;
    for (Py_ssize_t at = 0; at + 7 <= prescan; at++) {
        if ((s[at] | 0x20) != 'c' || !spells(s, prescan, at, "charset"))
            continue;
        Py_ssize_t start = -1; /* lowered.rfind(b"<meta", 0, at) */
        for (Py_ssize_t k = at - 5; k >= 0; k--)
            if (spells(s, at, k, "<meta")) {
                start = k;
                break;
            }
        if (start < 0)
            continue;
        Py_ssize_t label = 0, end = meta_charset_at(s, prescan, start, &label);
        if (end < 0 || end < at)
            continue; /* no declaration there, or one that ends before this word */
        Py_ssize_t len = end - label;
        return (len == 5 && spells(s, prescan, label, "utf-8")) || (len == 4 && spells(s, prescan, label, "utf8"));
    }
    return 1; /* no declaration: UTF-8 */
}

PyDoc_STRVAR(deciding_tags_utf8_doc,
             "deciding_tags_utf8(data, marks, titles=False, /)\n--\n\n"
             "`deciding_tags` of the text head bytes decode to (`encoding.decode_head`), from the bytes,\n"
             "where they are certainly UTF-8 (no BOM; no charset declared but utf-8); else None.");

static PyObject *deciding_tags_utf8(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    const Told *told = heads_told(module);
    if (told == NULL)
        return NULL;
    Marks marks;
    int want_text;
    if (read_args(args, nargs, &PyBytes_Type, "deciding_tags_utf8(data: bytes, marks: tuple[str, ...], titles: bool = False)",
                  &marks, &want_text) < 0)
        return NULL;
    const Py_UCS1 *s = (const Py_UCS1 *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    if (!surely_utf8(s, n))
        Py_RETURN_NONE;
    return (want_text ? scan_utf8_titles : scan_utf8)(NULL, s, n, &marks, told);
}

PyDoc_STRVAR(read_tag_doc,
             "read_tag(text, /)\n--\n\n"
             "A plain meta or link tag's name and attributes, as `scanner._read_match` reads them\n"
             "(names lower-cased; a name given twice keeps its last value); None for anything else,\n"
             "and for a tag with a '&' in a value (its character references are Python's to read).");

static PyObject *read_tag(PyObject *module, PyObject *text) {
    const Told *told = heads_told(module);
    if (told == NULL)
        return NULL;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "read_tag(text: str)");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
#define AT(k) PyUnicode_READ(kind, data, (k))
    if (n < 1 || AT(0) != '<' || AT(n - 1) != '>')
        Py_RETURN_NONE;
    /* its name: a signal's tag, in ASCII letters of any case, then white space, '/' or '>' */
    const Name *name = NULL;
    for (int m = 0; m < told->signals && name == NULL; m++) {
        const Name *tag = &told->signal[m];
        Py_ssize_t k = 0;
        if (n < tag->len + 2)
            continue;
        while (k < tag->len && ascii_lower(AT(1 + k)) == (Py_UCS4)(Py_UCS1)tag->text[k])
            k++;
        Py_UCS4 after = AT(1 + k);
        if (k == tag->len && (ascii_space(after) || after == '/' || after == '>'))
            name = tag;
    }
    if (name == NULL)
        Py_RETURN_NONE;
    PyObject *attrs = PyDict_New();
    if (attrs == NULL)
        return NULL;
    Py_ssize_t p = name->len + 1;
    for (;;) {
        Py_ssize_t q = p;
        while (q < n && ascii_space(AT(q)))
            q++;
        if (q >= n)
            goto other;
        Py_UCS4 c = AT(q);
        if (c == '>') {
            if (q != n - 1)
                goto other;
            break;
        }
        if (c == '/') {
            if (q + 2 != n || AT(q + 1) != '>')
                goto other;
            break;
        }
        if (q == p)
            goto other;
        Py_ssize_t r;
        PLAIN_RUN(r, q, n, AT, ends_name, goto other)
        if (r == q)
            goto other;
        PyObject *key = PyUnicode_New(r - q, 127);
        if (key == NULL)
            goto fail;
        for (Py_ssize_t k = q; k < r; k++)
            PyUnicode_1BYTE_DATA(key)[k - q] = (Py_UCS1)ascii_lower(AT(k));
        Py_ssize_t t = r, start = 0, end = 0;
        while (t < n && ascii_space(AT(t)))
            t++;
        if (t < n && AT(t) == '=') {
            t++;
            while (t < n && ascii_space(AT(t)))
                t++;
            Py_UCS4 quote = t < n ? AT(t) : 0;
            if (quote == '"' || quote == '\'') {
                Py_ssize_t u = t + 1;
                while (u < n && AT(u) != quote && AT(u) != '<' && AT(u) != '>' && AT(u) != '&')
                    u++;
                if (u >= n || AT(u) != quote) {
                    Py_DECREF(key);
                    goto other;
                }
                start = t + 1, end = u, p = u + 1;
            } else {
                Py_ssize_t u;
                PLAIN_RUN(u, t, n, AT, ends_unquoted_or_reference, { Py_DECREF(key); goto other; })
                if (u == t || (u < n && AT(u) == '&')) {
                    Py_DECREF(key);
                    goto other;
                }
                start = t, end = u, p = u;
            }
        } else {
            p = r;
        }
        PyObject *value = PyUnicode_Substring(text, start, end);
        if (value == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        int failed = PyDict_SetItem(attrs, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (failed < 0)
            goto fail;
    }
#undef AT
    PyObject *tag_name = PyUnicode_FromStringAndSize(name->text, name->len);
    if (tag_name == NULL)
        goto fail;
    PyObject *tag = PyTuple_Pack(2, tag_name, attrs);
    Py_DECREF(tag_name);
    Py_DECREF(attrs);
    return tag;
other:
    Py_DECREF(attrs);
    Py_RETURN_NONE;
fail:
    Py_DECREF(attrs);
    return NULL;
}

#ifndef _WIN32
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kinds of `lister.listing`'s entries, as `told->kind` holds them. */
enum { KIND_DIR, KIND_PAGE, KIND_PAGE_LINK, KIND_OTHER_LINK };

/* Whether a name ends in one of the page suffixes, in ASCII letters of any case (as
 * `lister.listing` tests them: on UTF-8 names, only ASCII lower-cases to ASCII letters, but for
 * U+212A, which lower-cases to "k": no suffix may hold one, see `configure_listing`). */
static int page_named(const Told *told, const char *name, size_t n) {
    for (int m = 0; m < told->suffixes; m++) {
        const Name *suffix = &told->suffix[m];
        size_t len = (size_t)suffix->len, k = 0;
        if (n < len)
            continue;
        while (k < len && (char)ascii_lower((Py_UCS1)name[n - len + k]) == suffix->text[k])
            k++;
        if (k == len)
            return 1;
    }
    return 0;
}

/* A name's rank: its place among the index names, else their number. */
static int index_rank(const Told *told, const char *name, size_t n) {
    int m = 0;
    while (m < told->indexes && !((size_t)told->index[m].len == n && memcmp(name, told->index[m].text, n) == 0))
        m++;
    return m;
}

/* What `next_listed` gives where it gives no entry. */
enum { LISTED_END = 0, LISTED_FAILED = -1, LISTED_UNTYPED = -2 };

/* The next entry of `dir` that `lister.listing` keeps, its name and kind (`KIND_*`), "." and
 * "..", and assets, passed over: 1; else `LISTED_END`, `LISTED_FAILED` (errno says why) or
 * `LISTED_UNTYPED`, an entry whose type is not in the listing (d_type unknown). */
static int next_listed(const Told *told, DIR *dir, const char **name, size_t *n, int *kind) {
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(dir);
        if (entry == NULL)
            return errno != 0 ? LISTED_FAILED : LISTED_END;
        *name = entry->d_name;
        *n = strlen(*name);
        if ((*name)[0] == '.' && (*n == 1 || (*n == 2 && (*name)[1] == '.')))
            continue;
        unsigned char type = entry->d_type;
        if (type == DT_UNKNOWN)
            return LISTED_UNTYPED;
        if (type == DT_DIR)
            *kind = KIND_DIR;
        else if (page_named(told, *name, *n))
            *kind = type == DT_LNK ? KIND_PAGE_LINK : KIND_PAGE;
        else if (type == DT_LNK)
            *kind = KIND_OTHER_LINK;
        else
            continue; /* an asset */
        return 1;
    }
}

/* The module's state, or NULL with RuntimeError where `configure_listing` has not told it yet:
 * `listing`, `walk` and `mtime_block` need the index names and page suffixes. */
static const Told *listing_state(PyObject *module) {
    const Told *told = PyModule_GetState(module);
    if (!told->listing_told) {
        PyErr_SetString(PyExc_RuntimeError, "configure_listing first (lister.py does, at import)");
        return NULL;
    }
    return told;
}

PyDoc_STRVAR(configure_listing_doc,
             "configure_listing(index_names, page_suffixes, kinds, /)\n--\n\n"
             "Tell `listing` the index names (in rank order) and the page suffixes (lower case, no 'k'),\n"
             "each a tuple of words, and the kinds to give a directory, a page, a page's symlink and\n"
             "another symlink (a tuple of four ints below 256). `lister` does, at import.");

static PyObject *configure_listing(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    Told *told = PyModule_GetState(module);
    if (nargs != 3 || !PyTuple_Check(args[2]) || PyTuple_GET_SIZE(args[2]) != 4) {
        PyErr_SetString(PyExc_TypeError, "configure_listing(index_names: tuple[str, ...], page_suffixes: "
                                         "tuple[str, ...], kinds: tuple[int, int, int, int])");
        return NULL;
    }
    Told taken = *told;
    if (read_names(args[0], taken.index, &taken.indexes, "index_names", "/") < 0 ||
        read_names(args[1], taken.suffix, &taken.suffixes, "page_suffixes", "/k") < 0)
        return NULL;
    for (int m = 0; m < 4; m++) {
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(args[2], m));
        if (kind == -1 && PyErr_Occurred())
            return NULL;
        if (kind < 0 || kind > 255) {
            PyErr_SetString(PyExc_ValueError, "kinds: ints below 256");
            return NULL;
        }
        taken.kind[m] = (char)kind;
    }
    taken.listing_told = 1;
    *told = taken;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(listing_doc,
             "listing(directory, /)\n--\n\n"
             "`lister.listing` of a directory (bytes) without documents: its entries (rank, raw name,\n"
             "NUL, kind), subdirectories, page-named files and symlinks, in no order; or None where\n"
             "an entry's type is not in the listing (d_type unknown): ask `lister.listing`.");

static PyObject *listing(PyObject *module, PyObject *directory) {
    const Told *told = listing_state(module);
    if (told == NULL)
        return NULL;
    if (!PyBytes_Check(directory)) {
        PyErr_SetString(PyExc_TypeError, "listing(directory: bytes)");
        return NULL;
    }
    const char *path = PyBytes_AS_STRING(directory);
    DIR *dir;
    Py_BEGIN_ALLOW_THREADS
    dir = opendir(path);
    Py_END_ALLOW_THREADS
    if (dir == NULL)
        return PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, directory);
    PyObject *found = PyList_New(0);
    if (found == NULL)
        goto failed;
    const char *name;
    size_t n;
    int kind, got;
    while ((got = next_listed(told, dir, &name, &n, &kind)) > 0) {
        int rank = index_rank(told, name, n);
        PyObject *item = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n + 3);
        if (item == NULL)
            goto failed;
        char *bytes = PyBytes_AS_STRING(item);
        bytes[0] = (char)rank;
        memcpy(bytes + 1, name, n);
        bytes[n + 1] = '\0';
        bytes[n + 2] = told->kind[kind];
        int appended = PyList_Append(found, item);
        Py_DECREF(item);
        if (appended < 0)
            goto failed;
    }
    if (got == LISTED_UNTYPED) {
        Py_DECREF(found);
        closedir(dir);
        Py_RETURN_NONE;
    }
    if (got == LISTED_FAILED) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, directory);
        goto failed;
    }
    closedir(dir);
    return found;
failed:
    Py_XDECREF(found);
    closedir(dir);
    return NULL;
}

/* One entry of a directory `walk` lists: where its name is in the names read, its length, rank
 * and kind; `name` set once every name is read (the buffer may move while it grows). */
typedef struct {
    size_t at, n;
    int rank, kind;
    const char *name;
} Entry;

/* `lister.listing`'s order: by rank, then by raw name bytes, a name before every longer name it
 * begins (as a NUL after each name sorts it). No two entries share a name. */
static int entry_order(const void *a, const void *b) {
    const Entry *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    int c = memcmp(x->name, y->name, x->n < y->n ? x->n : y->n);
    return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
}

/* The most entries a directory may have for `walk` to list it: past this many, its candidates
 * would be held all at once, which `Walk.list_directory` does not do. */
#define WALK_MOST 4096

/* The buffers of one `walk` call, grown as needed and freed at its end. */
typedef struct {
    char *path, *names;
    size_t path_size, names_size, names_used;
    Entry *entries;
    size_t entries_size, count;
} Buffers;

/* That `*buffer` holds `need` bytes (or `Entry`s, `size` bytes each); 0, or -1 where there is no
 * memory for it (no exception set: it may run without the GIL). */
static int grow(void **buffer, size_t *have, size_t need, size_t size) {
    if (need <= *have)
        return 0;
    size_t grown = *have ? *have : 64;
    while (grown < need)
        grown *= 2;
    void *more = realloc(*buffer, grown * size);
    if (more == NULL)
        return -1;
    *buffer = more;
    *have = grown;
    return 0;
}

/* `prefix` + `name` (+ '/') decoded as `lister` decodes names: UTF-8, undecodable bytes escaped. */
static PyObject *relpath_of(Buffers *b, const char *prefix, size_t p, const Entry *entry, int slash) {
    if (grow((void **)&b->path, &b->path_size, p + entry->n + 1, 1) < 0)
        return PyErr_NoMemory();
    memcpy(b->path, prefix, p);
    memcpy(b->path + p, entry->name, entry->n);
    b->path[p + entry->n] = '/';
    return PyUnicode_DecodeUTF8(b->path, (Py_ssize_t)(p + entry->n + slash), "surrogateescape");
}

/* Lists one directory, `root` + `prefix`, into `found` and `pending` as `walk` does: 1 where it
 * did, 0 where it hands the directory back (nothing added), -1 with an exception set. */
static int walk_directory(const Told *told, Buffers *b, PyObject *root, PyObject *prefix, PyObject *prune,
                          PyObject *stems, PyObject *found, PyObject *pending) {
    const char *base = PyBytes_AS_STRING(root), *pre = PyBytes_AS_STRING(prefix);
    size_t r = (size_t)PyBytes_GET_SIZE(root), p = (size_t)PyBytes_GET_SIZE(prefix);
    if (strlen(base) != r || strlen(pre) != p)
        return 0; /* a NUL in the path: `os.scandir`'s error to raise */
    if (grow((void **)&b->path, &b->path_size, r + p + 1, 1) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(b->path, base, r);
    memcpy(b->path + r, pre, p);
    b->path[r + p] = '\0';
    const char *stem = stems == Py_None ? NULL : PyBytes_AS_STRING(stems);
    size_t stem_len = stems == Py_None ? 0 : (size_t)PyBytes_GET_SIZE(stems);
    int handed = 0, no_memory = 0;
    b->count = b->names_used = 0;
    Py_BEGIN_ALLOW_THREADS /* the system's part, and names copied into `b`: other threads go on */
    DIR *dir = opendir(b->path);
    if (dir == NULL)
        handed = 1; /* `list_directory` says why, as a skip */
    else {
        int indexes = 0, kind, got;
        const char *name;
        size_t n;
        while ((got = next_listed(told, dir, &name, &n, &kind)) > 0) {
            if (kind == KIND_OTHER_LINK) {
                handed = 1; /* a symlink that may be a directory's */
                break;
            }
            int rank = index_rank(told, name, n);
            if (kind != KIND_DIR) {
                indexes += rank < told->indexes;
                if (indexes > 1 ||
                    (stem != NULL && (n < stem_len || memcmp(name + n - stem_len, stem, stem_len) != 0))) {
                    handed = 1; /* names that may share a URL */
                    break;
                }
            }
            if (b->count == WALK_MOST) {
                handed = 1;
                break;
            }
            if (grow((void **)&b->names, &b->names_size, b->names_used + n, 1) < 0 ||
                grow((void **)&b->entries, &b->entries_size, b->count + 1, sizeof(Entry)) < 0) {
                no_memory = 1;
                break;
            }
            memcpy(b->names + b->names_used, name, n);
            b->entries[b->count++] = (Entry){b->names_used, n, rank, kind, NULL};
            b->names_used += n;
        }
        handed |= got < 0; /* an entry's type to ask for, or a read that failed: `list_directory` says it */
        closedir(dir);
        if (!handed && !no_memory) {
            for (size_t i = 0; i < b->count; i++)
                b->entries[i].name = b->names + b->entries[i].at;
            qsort(b->entries, b->count, sizeof(Entry), entry_order);
        }
    }
    Py_END_ALLOW_THREADS
    if (no_memory) {
        PyErr_NoMemory();
        return -1;
    }
    if (handed)
        return 0;
    Py_ssize_t start = PyList_GET_SIZE(found), subdirs = 0;
    for (size_t i = 0; i < b->count; i++) {
        Entry *entry = &b->entries[i];
        PyObject *relpath = relpath_of(b, pre, p, entry, entry->kind == KIND_DIR);
        if (relpath == NULL)
            return -1;
        if (entry->kind == KIND_DIR) {
            PyObject *pruned = PyObject_CallOneArg(prune, relpath);
            Py_DECREF(relpath);
            if (pruned == NULL)
                return -1;
            int left_out = pruned != Py_None;
            Py_DECREF(pruned);
            if (left_out) { /* a skip: said where `list_directory` says it */
                if (PyList_SetSlice(found, start, PyList_GET_SIZE(found), NULL) < 0)
                    return -1;
                return 0;
            }
            b->entries[subdirs++] = *entry; /* its place is behind: the listed subdirectories, in order */
            continue;
        }
        PyObject *candidate = PyTuple_Pack(2, relpath, entry->kind == KIND_PAGE_LINK ? Py_True : Py_False);
        Py_DECREF(relpath);
        if (candidate == NULL || PyList_Append(found, candidate) < 0) {
            Py_XDECREF(candidate);
            return -1;
        }
        Py_DECREF(candidate);
    }
    while (subdirs > 0) { /* the first popped next */
        const Entry *entry = &b->entries[--subdirs];
        PyObject *subdir = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(p + entry->n + 1));
        if (subdir == NULL)
            return -1;
        memcpy(PyBytes_AS_STRING(subdir), pre, p);
        memcpy(PyBytes_AS_STRING(subdir) + p, entry->name, entry->n);
        PyBytes_AS_STRING(subdir)[p + entry->n] = '/';
        int appended = PyList_Append(pending, subdir);
        Py_DECREF(subdir);
        if (appended < 0)
            return -1;
    }
    return 1;
}

PyDoc_STRVAR(walk_doc,
             "walk(root, pending, prune, stems, limit, /)\n--\n\n"
             "`walk.Walk.candidates`' walk without documents, many directories in one call: pops a\n"
             "directory's relpath (bytes, empty or ending in '/') from the list `pending`, lists it under\n"
             "`root` (bytes, ending in '/'), gives its candidates, (relpath, is_link) in walk order, and\n"
             "pushes its subdirectories that `prune` (called with each one's relpath and '/') leaves in,\n"
             "the first to be popped next; until `pending` is empty, or `limit` candidates are given, or\n"
             "`limit` directories listed.\n"
             "A directory it cannot answer for exactly as `Walk.list_directory` does ends the answer,\n"
             "its relpath (bytes) last, for `list_directory` to list: one it cannot list, with an entry\n"
             "whose type is not in the listing or a symlink other than a page's, a subdirectory `prune`\n"
             "leaves out, two index names, with `stems` (bytes) a page whose name does not end in them,\n"
             "or more than 4,096 entries.");

static PyObject *walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    const Told *told = listing_state(module);
    if (told == NULL)
        return NULL;
    if (nargs != 5 || !PyBytes_Check(args[0]) || !PyList_Check(args[1]) || !PyCallable_Check(args[2]) ||
        (args[3] != Py_None && !PyBytes_Check(args[3]))) {
        PyErr_SetString(PyExc_TypeError,
                        "walk(root: bytes, pending: list[bytes], prune: Callable, stems: bytes | None, limit: int)");
        return NULL;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(args[4]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    PyObject *pending = args[1], *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    Buffers b = {0};
    /* At most `limit` directories too: a tree of empty ones returns as often (to a Ctrl-C). */
    for (Py_ssize_t listed = 0; PyList_GET_SIZE(pending) > 0 && PyList_GET_SIZE(found) < limit && listed < limit;
         listed++) {
        Py_ssize_t last = PyList_GET_SIZE(pending) - 1;
        PyObject *prefix = PyList_GET_ITEM(pending, last);
        Py_INCREF(prefix);
        if (PyList_SetSlice(pending, last, last + 1, NULL) < 0) {
            Py_DECREF(prefix);
            goto failed;
        }
        if (!PyBytes_Check(prefix)) {
            Py_DECREF(prefix);
            PyErr_SetString(PyExc_TypeError, "walk: pending holds bytes");
            goto failed;
        }
        int answered = walk_directory(told, &b, args[0], prefix, args[2], args[3], found, pending);
        if (answered < 0) {
            Py_DECREF(prefix);
            goto failed;
        }
        if (answered == 0) {
            int appended = PyList_Append(found, prefix);
            Py_DECREF(prefix);
            if (appended < 0)
                goto failed;
            break;
        }
        Py_DECREF(prefix);
    }
    goto done;
failed:
    Py_CLEAR(found);
done:
    free(b.path);
    free(b.names);
    free(b.entries);
    return found;
}

PyDoc_STRVAR(configure_reading_doc,
             "configure_reading(ends, first, step, /)\n--\n\n"
             "Tell `read_head` what ends a head (`head._HEAD_ENDS`: lower-case ASCII words, each starting\n"
             "with '<', found in any ASCII case) and the sizes of its first read and of each after.\n"
             "`head` does, at import.");

static PyObject *configure_reading(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    Told *told = PyModule_GetState(module);
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "configure_reading(ends: tuple[str, ...], first: int, step: int)");
        return NULL;
    }
    Told taken = *told;
    if (read_names(args[0], taken.end, &taken.ends, "ends", "") < 0)
        return NULL;
    for (int m = 0; m < taken.ends; m++) {
        if (taken.end[m].text[0] != '<') {
            PyErr_SetString(PyExc_ValueError, "ends: each starts with '<'");
            return NULL;
        }
    }
    taken.first = PyLong_AsSsize_t(args[1]);
    taken.step = PyLong_AsSsize_t(args[2]);
    if ((taken.first == -1 || taken.step == -1) && PyErr_Occurred())
        return NULL;
    if (taken.first < 1 || taken.step < 1) {
        PyErr_SetString(PyExc_ValueError, "first and step: at least 1");
        return NULL;
    }
    taken.reading_told = 1;
    *told = taken;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(read_head_doc,
             "read_head(path, max_bytes, /)\n--\n\n"
             "`head.read_open_head` of the regular file at `path` (bytes), opened as `safeio.open_regular_stat`\n"
             "opens it (following symlinks, never waiting on a FIFO) and closed after: a first read, then\n"
             "steps, up to `max_bytes`, until one of the ends of a head (`configure_reading`) or the end of\n"
             "the file. (the bytes up to that end, the file's st_mtime_ns, whether an end of a head ended\n"
             "them); None where it cannot be opened, is not a regular file, or a read fails: the caller asks\n"
             "again the slow way, which says why.");

#ifdef __APPLE__
#define MTIME(status) ((status).st_mtimespec)
#else
#define MTIME(status) ((status).st_mtim)
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

/* st_mtime_ns as `os.stat` gives it: an int of any size (a year past 2262 is past a long long's). */
static PyObject *nanoseconds(long long seconds, long nanoseconds) {
    if (seconds > -9000000000LL && seconds < 9000000000LL)
        return PyLong_FromLongLong(seconds * 1000000000LL + nanoseconds);
    PyObject *whole = PyLong_FromLongLong(seconds);
    PyObject *billion = PyLong_FromLong(1000000000L);
    PyObject *part = PyLong_FromLong(nanoseconds);
    PyObject *scaled = whole && billion ? PyNumber_Multiply(whole, billion) : NULL;
    PyObject *total = scaled && part ? PyNumber_Add(scaled, part) : NULL;
    Py_XDECREF(whole);
    Py_XDECREF(billion);
    Py_XDECREF(part);
    Py_XDECREF(scaled);
    return total;
}

/* Where the first end of a head starts in data[from:n], in any ASCII case; -1 if none does. */
static Py_ssize_t head_end_at(const Told *told, const char *data, Py_ssize_t n, Py_ssize_t from) {
    for (Py_ssize_t i = from; i < n; i++) {
        const char *open = memchr(data + i, '<', (size_t)(n - i)); /* from '<' to '<', not byte by byte */
        if (open == NULL)
            return -1;
        i = open - data;
        for (int e = 0; e < told->ends; e++) {
            const Name *end = &told->end[e];
            if (i + end->len > n)
                continue;
            Py_ssize_t k = 1; /* end->text[0] is '<' */
            while (k < end->len && ascii_lower((Py_UCS1)data[i + k]) == (Py_UCS1)end->text[k])
                k++;
            if (k == end->len)
                return i;
        }
    }
    return -1;
}

/* The head of the regular file at `path`, as `read_head` reads it, into *data (malloc'd, *n bytes
 * of it; the caller frees it), the file's mtime into *seconds and *parts, and whether an end of a
 * head ended it into *ended: 0; -1 where it cannot be opened, is not a regular file, or a read
 * fails. Called without the GIL. */
static int read_into(const Told *told, const char *path, Py_ssize_t max_bytes, char **data, Py_ssize_t *n,
                     long long *seconds, long *parts, int *ended) {
    const Py_ssize_t first = told->first, step = told->step;
    Py_ssize_t size = 0;
    int failed = 0;
    *data = NULL;
    *n = 0;
    *ended = 0;
    int fd;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    struct stat status;
    if (fd < 0)
        return -1;
    if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))
        failed = 1;
    else {
        *seconds = (long long)MTIME(status).tv_sec;
        *parts = (long)MTIME(status).tv_nsec;
        Py_ssize_t want = first;
        while (*n < max_bytes) {
            if (want > max_bytes - *n)
                want = max_bytes - *n;
            if (*n + want > size) {
                Py_ssize_t grown = size ? size * 2 : first;
                while (grown < *n + want)
                    grown *= 2;
                char *more = realloc(*data, (size_t)grown);
                if (more == NULL) {
                    failed = 1;
                    break;
                }
                *data = more;
                size = grown;
            }
            ssize_t got = read(fd, *data + *n, (size_t)want);
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                failed = 1;
                break;
            }
            if (got == 0)
                break; /* the whole file is the head */
            Py_ssize_t start = *n;
            *n += got;
            Py_ssize_t end = head_end_at(told, *data, *n, start > MAX_NAME ? start - MAX_NAME : 0);
            if (end >= 0) {
                *n = end;
                *ended = 1;
                break;
            }
            want = step;
        }
    }
    close(fd);
    if (failed) {
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

/* (the head's bytes, st_mtime_ns, whether an end of a head ended them): `read_head`'s answer. */
static PyObject *head_read(const char *data, Py_ssize_t n, long long seconds, long parts, int ended) {
    PyObject *bytes = PyBytes_FromStringAndSize(data ? data : "", n);
    PyObject *mtime_ns = nanoseconds(seconds, parts);
    if (bytes == NULL || mtime_ns == NULL) {
        Py_XDECREF(bytes);
        Py_XDECREF(mtime_ns);
        return NULL;
    }
    return Py_BuildValue("(NNO)", bytes, mtime_ns, ended ? Py_True : Py_False);
}

static PyObject *read_head(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    const Told *told = PyModule_GetState(module);
    if (!told->reading_told) {
        PyErr_SetString(PyExc_RuntimeError, "read_head: configure_reading first (head.py does, at import)");
        return NULL;
    }
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "read_head(path: bytes, max_bytes: int)");
        return NULL;
    }
    Py_ssize_t max_bytes = PyLong_AsSsize_t(args[1]);
    if (max_bytes == -1 && PyErr_Occurred())
        return NULL;
    if (max_bytes < 0) {
        PyErr_SetString(PyExc_ValueError, "read_head: max_bytes >= 0");
        return NULL;
    }
    const char *path = PyBytes_AS_STRING(args[0]);
    if (strlen(path) != (size_t)PyBytes_GET_SIZE(args[0])) {
        PyErr_SetString(PyExc_ValueError, "embedded null byte"); /* a ValueError, as os.open raises */
        return NULL;
    }
    char *data;
    Py_ssize_t n;
    long long seconds = 0;
    long parts = 0;
    int ended, failed;
    Py_BEGIN_ALLOW_THREADS
    failed = read_into(told, path, max_bytes, &data, &n, &seconds, &parts, &ended);
    Py_END_ALLOW_THREADS
    if (failed)
        Py_RETURN_NONE;
    PyObject *answer = head_read(data, n, seconds, parts, ended);
    free(data);
    return answer;
}

/* `value` (at least 0) in `count` decimal digits, zeros first, into `at`. */
static void digits(char *at, long long value, int count) {
    for (int k = count - 1; k >= 0; k--, value /= 10)
        at[k] = (char)('0' + value % 10);
}

/* The proleptic Gregorian day `days` after 1970-01-01, as "YYYY-MM-DD" into `out` (10 bytes):
 * `date.isoformat` of it, for the years 1970 to 9999 (H. Hinnant's `civil_from_days`). */
static void iso_day(long long days, char *out) {
    long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    unsigned day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    long long year = (long long)yoe + era * 400 + (month <= 2);
    digits(out, year, 4);
    out[4] = out[7] = '-';
    digits(out + 5, month, 2);
    digits(out + 8, day, 2);
}

static inline int lang_char(unsigned char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-';
}

/* The `<html lang>` of head bytes, as `head.html_lang` finds it (its pattern, searched in the first
 * `probe` bytes): where it starts in `data` and its length (1 to 35) into `*len`; -1 where none. */
static Py_ssize_t html_lang_at(const char *data, Py_ssize_t n, Py_ssize_t probe, Py_ssize_t *len) {
    const Py_UCS1 *s = (const Py_UCS1 *)data;
    if (n > probe)
        n = probe;
    for (Py_ssize_t i = 0; i + 5 <= n; i++) {
        if (s[i] != '<' || !spells(s, n, i, "<html"))
            continue;
        Py_ssize_t j = i + 5;
        if (j < n && ((lang_char(s[j]) && s[j] != '-') || s[j] == '_'))
            continue; /* no word boundary after `<html` */
        for (Py_ssize_t k = j; k < n && s[k] != '>'; k++) { /* the first `\slang\s*=\s*["']?` in the tag */
            if (!byte_space(s[k]) || !spells(s, n, k + 1, "lang"))
                continue;
            Py_ssize_t m = k + 5;
            while (m < n && byte_space(s[m]))
                m++;
            if (m >= n || s[m] != '=')
                continue;
            m++;
            while (m < n && byte_space(s[m]))
                m++;
            if (m < n && (s[m] == '"' || s[m] == '\''))
                m++;
            Py_ssize_t end = m;
            while (end < n && end - m < 35 && lang_char(s[end]))
                end++;
            if (end > m) {
                *len = end - m;
                return m;
            }
        }
    }
    return -1;
}

PyDoc_STRVAR(html_lang_doc, "html_lang(data, probe, /)\n--\n\n"
                            "`head.html_lang` of the head bytes `data`, searched in its first `probe` bytes: the\n"
                            "language (ASCII), or None; as `head_block` finds it.");

static PyObject *html_lang(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t probe = nargs == 2 && PyBytes_Check(args[0]) ? PyLong_AsSsize_t(args[1]) : -1;
    if (probe < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "html_lang(data: bytes, probe: int >= 0)");
        return NULL;
    }
    Py_ssize_t len = 0, at = html_lang_at(PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), probe, &len);
    return at < 0 ? Py_NewRef(Py_None) : PyUnicode_DecodeASCII(PyBytes_AS_STRING(args[0]) + at, len, NULL);
}

/* One call's constants of `mtime_block` or `head_block` (see their docs), read from its tuple. */
typedef struct {
    const char *root, *base, *frame[4], *kept, *escaped;
    Py_ssize_t root_len, base_len, frame_len[4], max_url, room;
    PyObject *check;
    /* What the name or the folder of a page `check` is asked of starts with (see `asked`); none: every page. */
    Name starts[MAX_NAMES];
    int start_count;
    int drop_index, date_only;
    double low, high;
    long long last_second;
    /* `head_block`'s: where a head is read (1) and how; else 0 (`mtime_block`: a `stat` a page) */
    int heads;
    Py_ssize_t max_bytes, probe;
    Marks marks;
    PyObject *known, *judge, *own_base;
    /* The x-default link the build adds to a cluster naming none (see `x_default_of`), or None. */
    PyObject *x_default;
} PageConstants;

/* How many constants `mtime_block` takes, and how many more `head_block` does. */
#define MTIME_CONSTANTS 17
#define HEAD_CONSTANTS 7

static int bytes_at(PyObject *tuple, Py_ssize_t i, const char **text, Py_ssize_t *len) {
    PyObject *item = PyTuple_GET_ITEM(tuple, i);
    if (!PyBytes_Check(item))
        return -1;
    *text = PyBytes_AS_STRING(item);
    *len = PyBytes_GET_SIZE(item);
    return 0;
}

/* Whether `value` is an x-default constant (see `x_default_of`): None, or (folded language of an
 * x-default link: str, its element where the build names a URL: bytes or None, the folded language
 * whose link's URL it names: str, its element to the end of its language: bytes, where a link's
 * language starts in its element: int). */
static int x_default_given(PyObject *value) {
    return value == Py_None ||
           (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 5 && PyUnicode_Check(PyTuple_GET_ITEM(value, 0)) &&
            (PyTuple_GET_ITEM(value, 1) == Py_None || PyBytes_Check(PyTuple_GET_ITEM(value, 1))) &&
            PyUnicode_Check(PyTuple_GET_ITEM(value, 2)) && PyBytes_Check(PyTuple_GET_ITEM(value, 3)) &&
            PyLong_Check(PyTuple_GET_ITEM(value, 4)));
}

/* The constants of `tuple` into `c`, with `heads` those of `head_block`: 0, or -1 with a TypeError
 * saying `usage` (what gives them) or another exception set. */
static int page_constants(PyObject *tuple, PageConstants *c, int heads, const char *usage) {
    Py_ssize_t kept_len, escaped_len, count = MTIME_CONSTANTS + (heads ? HEAD_CONSTANTS : 0);
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != count || bytes_at(tuple, 0, &c->root, &c->root_len) < 0 ||
        bytes_at(tuple, 1, &c->base, &c->base_len) < 0 || bytes_at(tuple, 2, &c->frame[0], &c->frame_len[0]) < 0 ||
        bytes_at(tuple, 3, &c->frame[1], &c->frame_len[1]) < 0 ||
        bytes_at(tuple, 4, &c->frame[2], &c->frame_len[2]) < 0 ||
        bytes_at(tuple, 5, &c->frame[3], &c->frame_len[3]) < 0 || bytes_at(tuple, 6, &c->kept, &kept_len) < 0 ||
        bytes_at(tuple, 7, &c->escaped, &escaped_len) < 0 || !PyCallable_Check(PyTuple_GET_ITEM(tuple, 8)) ||
        (heads && (!PyTuple_Check(PyTuple_GET_ITEM(tuple, 18)) || !x_default_given(PyTuple_GET_ITEM(tuple, 20)) ||
                   !PyDict_CheckExact(PyTuple_GET_ITEM(tuple, 21)) || !PyCallable_Check(PyTuple_GET_ITEM(tuple, 22)) ||
                   !PyUnicode_Check(PyTuple_GET_ITEM(tuple, 23))))) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    if ((Py_ssize_t)strlen(c->root) != c->root_len || (Py_ssize_t)strlen(c->kept) != kept_len ||
        (Py_ssize_t)strlen(c->escaped) != escaped_len) {
        PyErr_SetString(PyExc_ValueError, "root, kept and escaped hold no NUL");
        return -1;
    }
    c->check = PyTuple_GET_ITEM(tuple, 8);
    c->drop_index = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, 9));
    c->date_only = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, 10));
    c->max_url = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 11));
    c->last_second = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, 12));
    c->low = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, 13));
    c->high = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, 14));
    c->room = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 15));
    c->start_count = 0;
    PyObject *starts = PyTuple_GET_ITEM(tuple, 16);
    if (starts != Py_None && read_names(starts, c->starts, &c->start_count, "starts", "/") < 0)
        return -1;
    c->heads = heads;
    if (heads) {
        c->max_bytes = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 17));
        c->probe = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 19));
        if ((c->max_bytes < 0 || c->probe < 0) && !PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "head_block: max_bytes and probe >= 0");
        if (PyErr_Occurred() || read_marks(PyTuple_GET_ITEM(tuple, 18), &c->marks) < 0)
            return -1;
        c->x_default = PyTuple_GET_ITEM(tuple, 20);
        c->known = PyTuple_GET_ITEM(tuple, 21);
        c->judge = PyTuple_GET_ITEM(tuple, 22);
        c->own_base = PyTuple_GET_ITEM(tuple, 23);
    }
    if (c->drop_index < 0 || c->date_only < 0 || PyErr_Occurred())
        return -1;
    for (Py_ssize_t i = 0; i < c->base_len; i++) {
        unsigned char ch = (unsigned char)c->base[i];
        if (ch >= 0x80 || strchr(c->escaped, ch) != NULL) {
            c->max_url = -1; /* a base URL whose text is not what goes in the element: no page is answered */
            break;
        }
    }
    return 0;
}

/* Where `part` (length `len`) is met once in `tag` (n characters), followed by a quote, and, where
 * `quoted`, after one too (a whole quoted value); -1 where it is not so in it; -2 with an exception set. */
static Py_ssize_t met_once(PyObject *tag, Py_ssize_t n, PyObject *part, Py_ssize_t len, int quoted) {
    Py_ssize_t at = PyUnicode_Find(tag, part, 0, n, 1);
    if (at < 0)
        return at;
    if (at < quoted || at + len >= n)
        return -1;
    Py_UCS4 quote = PyUnicode_READ_CHAR(tag, at + len);
    if ((quote != '"' && quote != '\'') || (quoted && PyUnicode_READ_CHAR(tag, at - 1) != quote))
        return -1;
    Py_ssize_t again = PyUnicode_Find(tag, part, at + 1, n, 1);
    return again == -2 ? -2 : again == -1 ? at : -1;
}

/* Where `len` characters of `loc` from `from` are first met in `tag` (n characters); -1 where they
 * are not in it; -2 with an exception set. */
static Py_ssize_t contains(PyObject *tag, Py_ssize_t n, PyObject *loc, Py_ssize_t from, Py_ssize_t len) {
    PyObject *part = PyUnicode_Substring(loc, from, from + len);
    Py_ssize_t at = part == NULL ? -2 : PyUnicode_Find(tag, part, 0, n, 1);
    Py_XDECREF(part);
    return at;
}

/* Where `len` characters of `loc` from `from` are met once in `tag` (n characters), after a quote
 * (the start of a quoted value); -1 where they are not so in it; -2 with an exception set. */
static Py_ssize_t opens_once(PyObject *tag, Py_ssize_t n, PyObject *loc, Py_ssize_t from, Py_ssize_t len) {
    PyObject *part = PyUnicode_Substring(loc, from, from + len);
    if (part == NULL)
        return -2;
    Py_ssize_t at = PyUnicode_Find(tag, part, 0, n, 1), again = at < 1 ? -1 : PyUnicode_Find(tag, part, at + 1, n, 1);
    Py_DECREF(part);
    if (at == -2 || again == -2)
        return -2;
    if (at < 1 || again != -1)
        return -1;
    Py_UCS4 quote = PyUnicode_READ_CHAR(tag, at - 1);
    return quote == '"' || quote == '\'' ? at : -1;
}

/* `tag` (n characters) with `len` of its characters from `at` replaced by a NUL, then the character
 * `mark` where it is not -1 (a new reference); NULL with an exception set. */
static PyObject *marked(PyObject *tag, Py_ssize_t n, Py_ssize_t at, Py_ssize_t len, int mark) {
    PyObject *before = PyUnicode_Substring(tag, 0, at), *after = PyUnicode_Substring(tag, at + len, n);
    PyObject *shape = NULL;
    if (before && after)
        shape = mark < 0 ? PyUnicode_FromFormat("%U%c%U", before, 0, after)
                         : PyUnicode_FromFormat("%U%c%c%U", before, 0, mark, after);
    Py_XDECREF(before);
    Py_XDECREF(after);
    return shape;
}

/* Where a start of the page's URL `len` characters long is the part a shape replaced (`shape_of`),
 * as *suffix says it, and back: below -1, -2 and -3, which say a text's, a folder's and a file's. */
#define START_SHAPE(len) (-4 - (len))
#define START_LENGTH(suffix) (-4 - (suffix))

/* A deciding tag's shape on the page at `loc`: its text with the page's URL, met once in it and as
 * a whole quoted value, replaced by a NUL; else with the longest end of the URL from a '/' of its
 * path (from `path` on: where the base URL's last '/' is) that is met once in it, followed by a
 * quote, and holds no ';', replaced by two NULs; else with the URL and `name` (an index page's
 * file's name, or NULL), met once in it as a whole quoted value, replaced by a NUL and a 3 (see
 * `head_block`: a canonical naming the page's own file); else, where `folder` (the URL is a
 * folder's, not the base URL's), with the URL less its last '/', met once in it after a quote (the
 * start of a value), replaced by a NUL and a 2 (a canonical naming the folder as a file); else
 * with the longest start of the URL to a '/' past `path`, written whole or as a path from the root
 * (then with no ';'), met once in it after a quote, replaced by a NUL and a 4 (an hreflang link to
 * a URL under the page's folders: a language's home). No tag a scan finds holds a NUL, so no shape
 * is a tag's text, nor one kind of shape another. Py_None where none is in it; NULL with an
 * exception set. Where the part replaced starts in `loc` (-3: a file's shape, -2: a folder's; a
 * start's: `START_SHAPE` of its length): into *suffix. */
static PyObject *shape_of(PyObject *tag, PyObject *loc, Py_ssize_t path, const char *name, int folder,
                          Py_ssize_t *suffix) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(tag), len = PyUnicode_GET_LENGTH(loc);
    Py_ssize_t at = met_once(tag, n, loc, len, 1), from = 0;
    /* An end holds no ';': as a path from the root, `hrefs.read_href` does not take it (see below). */
    Py_ssize_t semicolon = at == -1 ? PyUnicode_FindChar(loc, ';', 0, len, -1) : -1;
    if (semicolon == -2)
        at = -2;
    for (from = at >= 0 ? 0 : Py_MAX(path, semicolon + 1); at == -1 && from < len; from++) {
        if (PyUnicode_READ_CHAR(loc, from) != '/')
            continue;
        PyObject *end = PyUnicode_Substring(loc, from, len);
        at = end == NULL ? -2 : met_once(tag, n, end, len - from, 0);
        Py_XDECREF(end);
        if (at >= 0)
            break;
    }
    if (at == -1 && name != NULL) { /* the URL its file is named by, made only where it is looked for */
        PyObject *file = PyUnicode_FromFormat("%U%s", loc, name);
        Py_ssize_t file_len = file ? PyUnicode_GET_LENGTH(file) : 0;
        at = file ? met_once(tag, n, file, file_len, 1) : -2;
        Py_XDECREF(file);
        if (at >= 0) {
            *suffix = -3;
            return marked(tag, n, at, file_len, 3);
        }
    }
    if (at == -1 && folder) { /* (one whose value goes on with a '/' is a start's, as below) */
        Py_ssize_t opens = opens_once(tag, n, loc, 0, len - 1);
        if (opens >= 0 && opens + len - 1 < n && PyUnicode_READ_CHAR(tag, opens + len - 1) != '/') {
            *suffix = -2;
            return marked(tag, n, opens, len - 1, 2);
        }
        at = opens == -2 ? -2 : -1;
    }
    /* The longest start to a '/', written whole, else as a path from the root: the page's origin
     * left out, and no ';', which no path from the root of a head holds (`hrefs.read_href`), so that
     * where one page's href is such a path, so is every page's of the same shape. */
    Py_ssize_t scheme = at == -1 ? PyUnicode_FindChar(loc, '/', 0, len, 1) : -1;
    Py_ssize_t origin = scheme >= 0 ? PyUnicode_FindChar(loc, '/', scheme + 2, len, 1) : -1;
    if (scheme == -2 || origin == -2)
        at = -2;
    /* (Each start holds the shortest: where that is not in the tag at all, no start is.) */
    Py_ssize_t shortest = at == -1 && path + 1 < len ? PyUnicode_FindChar(loc, '/', path + 1, len, 1) : -1;
    if (shortest == -2)
        at = -2;
    for (int rooted = 0; rooted < 2 && at == -1 && shortest >= 0; rooted++) {
        Py_ssize_t first = rooted ? origin : 0; /* where the part starts in `loc` */
        Py_ssize_t first_semicolon = rooted && first >= 0 ? PyUnicode_FindChar(loc, ';', first, len, 1) : -1;
        Py_ssize_t met = first >= 0 ? contains(tag, n, loc, first, shortest + 1 - first) : -1;
        if (first_semicolon == -2 || met == -2)
            at = -2;
        for (Py_ssize_t end = len - 1; at == -1 && met >= 0 && end > path; end--) {
            if (PyUnicode_READ_CHAR(loc, end) != '/' || (first_semicolon >= 0 && first_semicolon < end))
                continue;
            if ((at = opens_once(tag, n, loc, first, end + 1 - first)) >= 0) {
                *suffix = START_SHAPE(end + 1);
                return marked(tag, n, at, end + 1 - first, 4);
            }
        }
    }
    if (at == -2)
        return NULL;
    if (at == -1)
        Py_RETURN_NONE;
    *suffix = from;
    return marked(tag, n, at, len - from, from == 0 ? -1 : 0); /* the whole URL: one NUL; an end: two */
}

/* The most deciding tags of a head `head_block` answers for (a head with more is the decision's). */
#define MOST_TAGS 64

/* The hreflang links of a head (see `head_block`): each one's value (a new reference) and where the
 * part of the page's URL its shape replaced starts (-1: known by its text), in the order of its
 * tags; and, once made (`made_links`), its element and its URL (new references). */
typedef struct {
    PyObject *link[MOST_TAGS], *element[MOST_TAGS], *href[MOST_TAGS];
    Py_ssize_t suffix[MOST_TAGS];
    int count, made;
} Links;

/* What a deciding tag's value in `c->known`, or `c->judge`'s answer, says (see `head_block`): 1
 * where nothing its page's row would show (True) or an hreflang link (a tuple: by the tag's text,
 * its element, its language folded and its URL; by its shape (`suffix` >= 0: an end's; below -3: a
 * start's), the element before and after the part of the page's URL the shape replaced, its
 * language folded and its URL before that part (an end's) or after it (a start's)), 0 where more
 * (False), -1 with TypeError. */
static int said_of(PyObject *value, Py_ssize_t suffix) {
    if (value == Py_True || value == Py_False)
        return value == Py_True;
    Py_ssize_t size = PyTuple_CheckExact(value) ? PyTuple_GET_SIZE(value) : 0;
    if (size == 2 && suffix == -2 && PyTuple_CheckExact(PyTuple_GET_ITEM(value, 0)) &&
        PyUnicode_Check(PyTuple_GET_ITEM(value, 1)))
        return 1; /* by a folder's shape: a canonical naming the folder as a file, if no file answers it */
    if (size == 1 && suffix == -3 && PyUnicode_Check(PyTuple_GET_ITEM(value, 0)))
        return 1; /* by a file's shape: a canonical naming the page's own file, listed under it */
    int shaped = size == 4 && (suffix >= 0 || suffix <= START_SHAPE(1)); /* by its shape: one more part */
    if ((size == 3 || shaped) && PyBytes_Check(PyTuple_GET_ITEM(value, 0)) &&
        (shaped ? PyBytes_Check(PyTuple_GET_ITEM(value, 1)) : PyUnicode_Check(PyTuple_GET_ITEM(value, 1))) &&
        PyUnicode_Check(PyTuple_GET_ITEM(value, size - 2)) && PyUnicode_Check(PyTuple_GET_ITEM(value, size - 1)))
        return 1;
    PyErr_SetString(PyExc_TypeError, "head_block: a tag is known or judged True, False, (element: bytes, "
                                     "language: str, URL: str) or, by its shape, (before: bytes, after: bytes, "
                                     "language: str, URL's start: str), or by a folder's, (ends: tuple, URL's end: "
                                     "str), or by a file's, (name: str,)");
    return -1;
}

/* What `c->known` holds under `key` (a tag's text or shape; NULL or Py_None: none), a new
 * reference (held from here on: a judgment may clear `known`); NULL where nothing, or with an
 * exception set. */
static PyObject *known_as(const PageConstants *c, PyObject *key) {
    return key == NULL || key == Py_None ? NULL : Py_XNewRef(PyDict_GetItemWithError(c->known, key));
}

/* What `c->known` holds of a deciding tag on the page at `loc` (`name`, `folder`: see `shape_of`), by its
 * text or its shape (`shape_of`, into *shape, a new reference, where it is not known by its text), a new
 * reference, where the part of `loc` its shape replaced starts into *suffix (-1: by its text);
 * NULL where it holds neither, or with an exception set. */
static PyObject *known_of(const PageConstants *c, PyObject *tag, PyObject *loc, const char *name, int folder,
                          PyObject **shape, Py_ssize_t *suffix) {
    *shape = NULL;
    *suffix = -1;
    PyObject *known = known_as(c, tag);
    if (known != NULL || PyErr_Occurred() || (*shape = shape_of(tag, loc, c->base_len - 1, name, folder, suffix)) == NULL)
        return known;
    return known_as(c, *shape);
}

/* Whether the head `data` (n bytes, ended by an end of a head) says nothing on the page at `loc`
 * that its row would show but hreflang links (see `head_block`): each of its deciding tags known
 * so (`known_of`), or judged so by `c->judge`, asked with the tag, the URL and the shape of each
 * tag not known, in order, once no tag is known to say more: 1, its links into `links`; 0 where a
 * tag says more, or the head is not one a scan answers for; -1 with an exception set. Its deciding
 * tags (`deciding_tags_utf8`'s answer, a new reference) into `*found` where a scan found them; a
 * canonical naming the page's folder as a file, or its own file (`name`, `folder`: see `shape_of`),
 * what is known of it (a new reference), into `*missing`, where that is the only tag that may say a
 * canonical. */
static int says_nothing_more(const Told *told, const PageConstants *c, const char *data, Py_ssize_t n, PyObject *loc,
                             const char *name, int folder, PyObject **found, Links *links, PyObject **missing) {
    *found = NULL;
    *missing = NULL;
    links->count = 0;
    if (!surely_utf8((const Py_UCS1 *)data, n))
        return 0;
    PyObject *tags = scan_utf8(NULL, (const Py_UCS1 *)data, n, &c->marks, told);
    if (tags == NULL)
        return -1;
    if (tags == Py_None) {
        Py_DECREF(tags);
        return 0;
    }
    *found = tags;
    Py_ssize_t count = PyList_GET_SIZE(tags), first = -1; /* the first tag not known */
    if (count > MOST_TAGS)
        return 0;
    PyObject *said[MOST_TAGS] = {NULL}; /* what each tag says, where known or judged */
    PyObject *shapes[MOST_TAGS] = {NULL}; /* each tag's shape, where not known by its text */
    Py_ssize_t suffix[MOST_TAGS];
    char by_text[MOST_TAGS] = {0}; /* known by its text (so no canonical naming the page: see `judge`) */
    int nothing = 1;
    for (Py_ssize_t t = 0; t < count && nothing == 1; t++) {
        said[t] = known_of(c, PyList_GET_ITEM(tags, t), loc, name, folder, &shapes[t], &suffix[t]);
        by_text[t] = shapes[t] == NULL;
        if (said[t] != NULL)
            nothing = said_of(said[t], suffix[t]);
        else if (PyErr_Occurred())
            nothing = -1;
        else if (first < 0)
            first = t;
    }
    /* Then each tag not known, from the first (those before it are known to say nothing more),
     * looked up again by its text and its shape (a judgment since may have told of it), or judged. */
    for (Py_ssize_t t = first; first >= 0 && t < count && nothing == 1; t++) {
        if (said[t] != NULL)
            continue;
        PyObject *tag = PyList_GET_ITEM(tags, t);
        if ((said[t] = known_as(c, tag)) != NULL) {
            suffix[t] = -1;
            by_text[t] = 1;
        } else if (!PyErr_Occurred() && (said[t] = known_as(c, shapes[t])) == NULL && !PyErr_Occurred())
            said[t] = PyObject_CallFunctionObjArgs(c->judge, tag, loc, shapes[t], NULL);
        nothing = said[t] == NULL ? -1 : said_of(said[t], suffix[t]);
    }
    /* A canonical naming the folder as a file, or the page's own file, once, and no other tag that
     * may name a canonical (one not known by its text): two canonicals are the decision's to say. */
    int others = 0;
    for (Py_ssize_t t = 0; t < count && nothing == 1; t++) {
        if (!PyTuple_CheckExact(said[t]) || PyTuple_GET_SIZE(said[t]) > 2)
            others |= said[t] == Py_True && !by_text[t];
        else if (*missing != NULL)
            nothing = 0;
        else
            *missing = Py_NewRef(said[t]);
    }
    if (nothing == 1 && *missing != NULL && others)
        nothing = 0;
    for (Py_ssize_t t = 0; t < count; t++) {
        Py_XDECREF(shapes[t]);
        if (nothing == 1 && PyTuple_CheckExact(said[t]) && PyTuple_GET_SIZE(said[t]) > 2) {
            links->link[links->count] = said[t]; /* the reference handed on */
            links->suffix[links->count++] = PyTuple_GET_SIZE(said[t]) == 4 ? suffix[t] : -1;
            continue;
        }
        Py_XDECREF(said[t]);
    }
    if (nothing != 1)
        Py_CLEAR(*missing);
    return nothing;
}

/* Each link's element and URL (`Links`), the part of `loc` (ASCII) its shape replaced put in
 * where it was known by its shape: 0, or -1 with an exception set. */
static int made_links(Links *links, PyObject *loc) {
    for (links->made = 0; links->made < links->count; links->made++) {
        int i = links->made;
        PyObject *link = links->link[i], *first = PyTuple_GET_ITEM(link, 0);
        if (links->suffix[i] == -1) { /* by its text */
            links->element[i] = Py_NewRef(first);
            links->href[i] = Py_NewRef(PyTuple_GET_ITEM(link, 2));
            continue;
        }
        /* The part of `loc` replaced: an end from `suffix`, or a start (its URL's, then the rest). */
        int start = links->suffix[i] <= START_SHAPE(1);
        Py_ssize_t from = start ? 0 : links->suffix[i];
        Py_ssize_t len = start ? START_LENGTH(links->suffix[i]) : PyUnicode_GET_LENGTH(loc) - from;
        PyObject *after = PyTuple_GET_ITEM(link, 1), *part = PyUnicode_Substring(loc, from, from + len);
        PyObject *other = PyTuple_GET_ITEM(link, 3);
        links->href[i] = part ? (start ? PyUnicode_Concat(part, other) : PyUnicode_Concat(other, part)) : NULL;
        Py_XDECREF(part);
        links->element[i] = PyBytes_FromStringAndSize(NULL, PyBytes_GET_SIZE(first) + len + PyBytes_GET_SIZE(after));
        if (links->href[i] == NULL || links->element[i] == NULL) {
            Py_CLEAR(links->href[i]);
            Py_CLEAR(links->element[i]);
            return -1;
        }
        char *at = PyBytes_AS_STRING(links->element[i]);
        memcpy(at, PyBytes_AS_STRING(first), (size_t)PyBytes_GET_SIZE(first));
        memcpy(at + PyBytes_GET_SIZE(first), (const char *)PyUnicode_1BYTE_DATA(loc) + from, (size_t)len);
        memcpy(at + PyBytes_GET_SIZE(first) + len, PyBytes_AS_STRING(after), (size_t)PyBytes_GET_SIZE(after));
    }
    return 0;
}

/* The references `Links` holds, given up. */
static void drop_links(Links *links) {
    for (int i = 0; i < links->count; i++) {
        Py_DECREF(links->link[i]);
        if (i < links->made) {
            Py_DECREF(links->element[i]);
            Py_DECREF(links->href[i]);
        }
    }
    links->count = links->made = 0;
}

/* What `Decider.cluster` makes of the hreflang links of a head (`links`, made), where it takes
 * them as the head gives them: each link met before (the same element: its language as written and
 * its URL) and each of a language (folded) given two URLs marked 0 in `kept`, the bytes of those
 * left added to `*length`, and those languages, in the order met, into `*conflicts` (a new tuple,
 * or NULL where none). Where none left names the page (`own`, its URL as a head's URLs are
 * normalized), the page's `<html lang>` (`lang`, `lang_len` bytes; NULL: none) must be one of
 * theirs, and none may start with `stem` (where each URL of the page's other forms starts: one may
 * name it so): `*no_self` set. 1; 0 where the decision must say more; -1 with an exception set. */
static int cluster_of(const Links *links, PyObject *own, PyObject *stem, const char *lang, Py_ssize_t lang_len,
                      char *kept, Py_ssize_t *length, PyObject **conflicts, int *no_self) {
    char dropped[MOST_TAGS], first[MOST_TAGS];
    Py_ssize_t languages = 0;
    *conflicts = NULL;
    *no_self = 0;
    for (int i = 0; i < links->count; i++) {
        kept[i] = 1;
        for (int j = 0; j < i && kept[i]; j++)
            kept[i] = !kept[j] || PyBytes_GET_SIZE(links->element[i]) != PyBytes_GET_SIZE(links->element[j]) ||
                      memcmp(PyBytes_AS_STRING(links->element[i]), PyBytes_AS_STRING(links->element[j]),
                             (size_t)PyBytes_GET_SIZE(links->element[i])) != 0;
    }
    for (int i = 0; i < links->count; i++) {
        PyObject *language = PyTuple_GET_ITEM(links->link[i], PyTuple_GET_SIZE(links->link[i]) - 2);
        dropped[i] = 0;
        first[i] = 1;
        for (int j = 0; j < links->count && kept[i]; j++) {
            if (j == i || !kept[j] ||
                PyUnicode_Compare(language, PyTuple_GET_ITEM(links->link[j], PyTuple_GET_SIZE(links->link[j]) - 2)))
                continue;
            first[i] &= j > i;
            dropped[i] |= PyUnicode_Compare(links->href[i], links->href[j]) != 0; /* one language, two URLs */
        }
        languages += kept[i] && dropped[i] && first[i];
    }
    if (PyErr_Occurred() || (languages > 0 && (*conflicts = PyTuple_New(languages)) == NULL))
        return -1;
    int named = 0, left = 0;
    Py_ssize_t said = 0;
    for (int i = 0; i < links->count; i++) {
        if (kept[i] && dropped[i] && first[i]) {
            PyObject *language = PyTuple_GET_ITEM(links->link[i], PyTuple_GET_SIZE(links->link[i]) - 2);
            PyTuple_SET_ITEM(*conflicts, said++, Py_NewRef(language));
        }
        kept[i] &= !dropped[i];
        if (kept[i]) {
            left++;
            *length += PyBytes_GET_SIZE(links->element[i]);
            named |= PyUnicode_Compare(links->href[i], own) == 0;
        }
    }
    if (left == 0 || named)
        return 1;
    for (int i = 0; i < links->count; i++) {
        if (!kept[i])
            continue;
        Py_ssize_t starts = PyUnicode_Tailmatch(links->href[i], stem, 0, PY_SSIZE_T_MAX, -1);
        if (starts != 0)
            return starts < 0 ? -1 : 0; /* it may name the page in another form: the decision's to ask */
    }
    int in_it = lang == NULL; /* none: the cluster is kept as the head gives it */
    for (int i = 0; i < links->count && !in_it; i++) {
        PyObject *language = PyTuple_GET_ITEM(links->link[i], PyTuple_GET_SIZE(links->link[i]) - 2);
        if (!kept[i] || PyUnicode_GET_LENGTH(language) != lang_len || PyUnicode_KIND(language) != PyUnicode_1BYTE_KIND)
            continue;
        const Py_UCS1 *folded = PyUnicode_1BYTE_DATA(language);
        Py_ssize_t k = 0;
        while (k < lang_len && folded[k] == (Py_UCS1)ascii_lower((unsigned char)lang[k]))
            k++;
        in_it = k == lang_len;
    }
    *no_self = in_it;
    return in_it; /* else the decision adds the page in its language, or says it is none */
}

/* The x-default link `Decider.with_x_default` adds to a cluster (`links`, made, those `kept`, one
 * at least), where the build adds one (`c->x_default`, see `x_default_given`) and no link kept is
 * one: the element it names a URL with, or the element of the first link kept in the language it
 * names, its language the x-default's. A new reference: bytes, or None where none is added; NULL
 * with an exception set. */
static PyObject *x_default_of(const PageConstants *c, const Links *links, const char *kept) {
    if (c->x_default == Py_None)
        return Py_NewRef(Py_None);
    PyObject *own = PyTuple_GET_ITEM(c->x_default, 0), *element = PyTuple_GET_ITEM(c->x_default, 1);
    PyObject *choice = PyTuple_GET_ITEM(c->x_default, 2);
    int chosen = -1;
    for (int i = 0; i < links->count; i++) {
        if (!kept[i])
            continue;
        PyObject *language = PyTuple_GET_ITEM(links->link[i], PyTuple_GET_SIZE(links->link[i]) - 2);
        int same = PyUnicode_Compare(language, own);
        if (same == 0)
            return Py_NewRef(Py_None); /* the head names one */
        if (chosen < 0 && element == Py_None && PyUnicode_Compare(language, choice) == 0)
            chosen = i;
        if (PyErr_Occurred())
            return NULL;
    }
    if (element != Py_None)
        return Py_NewRef(element);
    if (chosen < 0)
        return Py_NewRef(Py_None); /* no link in that language: none added */
    PyObject *start = PyTuple_GET_ITEM(c->x_default, 3), *link = links->element[chosen];
    Py_ssize_t from = PyLong_AsSsize_t(PyTuple_GET_ITEM(c->x_default, 4)), len = PyBytes_GET_SIZE(link);
    const char *text = PyBytes_AS_STRING(link);
    const char *quote = from >= 0 && from < len ? memchr(text + from, '"', (size_t)(len - from)) : NULL;
    if (quote == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "head_block: a link's element holds no language where told");
        return NULL;
    }
    Py_ssize_t rest = len - (quote - text);
    PyObject *made = PyBytes_FromStringAndSize(NULL, PyBytes_GET_SIZE(start) + rest);
    if (made != NULL) {
        memcpy(PyBytes_AS_STRING(made), PyBytes_AS_STRING(start), (size_t)PyBytes_GET_SIZE(start));
        memcpy(PyBytes_AS_STRING(made) + PyBytes_GET_SIZE(start), quote, (size_t)rest);
    }
    return made;
}

/* Whether no file answers a canonical naming the page's folder as a file, as `judge` knows it
 * (`missing`: the ends, bytes, of the files a server answers it with, after the folder's path):
 * 1; 0 where one is a regular file; -1 with an exception set. The folder's path: `root` (`root_len`
 * bytes), then its relpath (`folder`, `len` bytes). */
static int answered_by_none(const char *root, size_t root_len, const char *folder, size_t len, PyObject *missing) {
    PyObject *ends = PyTuple_GET_ITEM(missing, 0);
    int none = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ends) && none == 1; i++) {
        PyObject *end = PyTuple_GET_ITEM(ends, i);
        if (!PyBytes_Check(end) || (Py_ssize_t)strlen(PyBytes_AS_STRING(end)) != PyBytes_GET_SIZE(end)) {
            PyErr_SetString(PyExc_TypeError, "head_block: a folder's shape is known as (ends: tuple of bytes, "
                                             "each without a NUL, URL's end: str)");
            return -1;
        }
        char *path = malloc(root_len + len + (size_t)PyBytes_GET_SIZE(end) + 1);
        if (path == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(path, root, root_len);
        memcpy(path + root_len, folder, len);
        memcpy(path + root_len + len, PyBytes_AS_STRING(end), (size_t)PyBytes_GET_SIZE(end) + 1);
        struct stat status;
        Py_BEGIN_ALLOW_THREADS
        none = stat(path, &status) != 0 || !S_ISREG(status.st_mode);
        Py_END_ALLOW_THREADS
        free(path);
    }
    return none;
}

/* Whether `text` (`n` bytes) starts with `start`, ASCII letters in any case. */
static inline int starts_with(const char *text, Py_ssize_t n, const Name *start) {
    if (n < start->len)
        return 0;
    for (Py_ssize_t k = 0; k < start->len; k++)
        if ((char)ascii_lower((Py_UCS1)text[k]) != start->text[k])
            return 0;
    return 1;
}

/* Whether `check` is asked of the page at the relpath `raw` (`n` bytes, its name from `name`):
 * where no starts are given, of every page; else where its name, or its folder's, starts with one
 * of them, ASCII letters in any case (the Python side says why no other page is one `check` leaves
 * out). */
static int asked(const PageConstants *c, const char *raw, Py_ssize_t name, Py_ssize_t n) {
    if (c->start_count == 0)
        return 1;
    Py_ssize_t folder;
    for (folder = name > 0 ? name - 1 : 0; folder > 0 && raw[folder - 1] != '/'; folder--)
        ;
    for (int m = 0; m < c->start_count; m++)
        if (starts_with(raw + name, n - name, &c->starts[m]) ||
            (name > 0 && starts_with(raw + folder, name - 1 - folder, &c->starts[m])))
            return 1;
    return 0;
}

/* The relpath's page, listed as `quick.MtimeOnly.batch` lists it (or, where `c->heads`,
 * `quick.HeadRead.decide`), appended to the block's lists (`lists`: locs, xmls, keys, texts): 1; 0
 * where it is not such a page, or not one this answers for (nothing appended; where its head was
 * read, that read, as `read_head` gives it, and its deciding tags where a scan found them, else
 * None, appended to `handed`); -1 with an exception set. What the decision notes of a page
 * listed with its cluster goes in `noted` (see `head_block`).
 * `buffer` is at least `size` bytes. */
static int list_page(const Told *told, const PageConstants *c, PyObject *relpath, PyObject *const *lists,
                     PyObject *handed, PyObject *noted, char **buffer, size_t *size) {
    PyObject *encoded = PyUnicode_EncodeFSDefault(relpath);
    if (encoded == NULL)
        return -1;
    const char *raw = PyBytes_AS_STRING(encoded);
    Py_ssize_t n = PyBytes_GET_SIZE(encoded);
    Py_ssize_t name = n; /* where the page's name starts */
    while (name > 0 && raw[name - 1] != '/')
        name--;
    if (asked(c, raw, name, n)) {
        PyObject *said = PyObject_CallOneArg(c->check, relpath);
        int left_out = said != NULL && said != Py_None;
        Py_XDECREF(said);
        if (said == NULL || left_out) {
            Py_DECREF(encoded);
            return said == NULL ? -1 : 0;
        }
    }
    int answered = 0;
    char *head = NULL; /* the page's head, where it is read */
    Py_ssize_t head_len = 0;
    int ended = 0;
    long parts = 0;
    PyObject *loc_text = NULL, *found = NULL, *conflicts = NULL; /* the languages given two URLs, noted */
    PyObject *missing = NULL, *canonical = NULL; /* a canonical no file answers: what is known of it, noted */
    PyObject *listed = NULL; /* the URL the page is listed under where its canonical names its own file */
    int no_self = 0; /* noted: the cluster, kept as the head gives it, does not name the page */
    Links links = {.count = 0, .made = 0};
    char kept[MOST_TAGS];
    Py_ssize_t links_len = 0; /* the bytes of the links kept */
    PyObject *x_default = NULL; /* the x-default link added to them (None: none) */
    /* The longest text: the path to open, or the element with every byte encoded (3 for 1). */
    size_t need = (size_t)(c->root_len + n + 1) +
                  (size_t)(c->frame_len[0] + c->frame_len[1] + c->frame_len[2] + c->frame_len[3]) +
                  (size_t)(c->base_len + 3 * n) + 32;
    if (grow((void **)buffer, size, need, 1) < 0) {
        Py_DECREF(encoded);
        PyErr_NoMemory();
        return -1;
    }
    char *path = *buffer;
    memcpy(path, c->root, (size_t)c->root_len);
    memcpy(path + c->root_len, raw, (size_t)n);
    path[c->root_len + n] = '\0';
    long long seconds = 0;
    int failed;
    if ((Py_ssize_t)strlen(raw) != n)
        goto done; /* a NUL: the decision's error to say */
    if (c->heads) {
        Py_BEGIN_ALLOW_THREADS
        failed = read_into(told, path, c->max_bytes, &head, &head_len, &seconds, &parts, &ended);
        Py_END_ALLOW_THREADS
    } else {
        struct stat status;
        Py_BEGIN_ALLOW_THREADS
        failed = stat(path, &status) != 0 || !S_ISREG(status.st_mode);
        Py_END_ALLOW_THREADS
        seconds = failed ? 0 : (long long)MTIME(status).tv_sec;
    }
    if (failed)
        goto done; /* the decision says why */
    if (seconds < 0 || seconds >= c->last_second)
        goto hand;
    /* The URL: the base, then the path's bytes percent-encoded, an index name dropped. */
    Py_ssize_t end = n, dot = name;
    int index = index_rank(told, raw + name, (size_t)(n - name)) < told->indexes;
    if (c->drop_index && index)
        end = name;
    for (Py_ssize_t i = name; i < n; i++)
        dot = raw[i] == '.' ? i : dot;
    /* Where each URL of the page's other forms (`hosts.base.page_forms`) starts: its folder's, an
     * index page's; else up to its name's suffix. Its end in the URL, once written, into `stem`. */
    Py_ssize_t stem_at = index ? (name > 0 ? name - 1 : 0) : dot, stem = c->base_len;
    char *xml = *buffer, *at = xml;
    memcpy(at, c->frame[0], (size_t)c->frame_len[0]);
    at += c->frame_len[0];
    char *loc = at;
    memcpy(at, c->base, (size_t)c->base_len);
    at += c->base_len;
    static const char hex[] = "0123456789ABCDEF";
    for (Py_ssize_t i = 0; i < end; i++) {
        unsigned char ch = (unsigned char)raw[i];
        if (i == stem_at)
            stem = at - loc;
        if (ch != 0 && ch < 0x80 && strchr(c->kept, ch) != NULL) {
            if (strchr(c->escaped, ch) != NULL)
                goto hand; /* a character the element escapes: the decision's to write */
            *at++ = (char)ch;
        } else {
            *at++ = '%';
            *at++ = hex[ch >> 4];
            *at++ = hex[ch & 15];
        }
    }
    Py_ssize_t loc_len = at - loc;
    if (loc_len > c->max_url)
        goto hand;
    loc_text = PyUnicode_DecodeASCII(loc, loc_len, NULL);
    if (loc_text == NULL) {
        answered = -1;
        goto done;
    }
    if (c->heads) { /* the head judged before the rest of the element is written */
        int folder = c->drop_index && index && name > 0; /* a folder's URL, not the base URL */
        const char *file = c->drop_index && index ? raw + name : NULL; /* an index page's name, dropped */
        int nothing =
            ended ? says_nothing_more(told, c, head, head_len, loc_text, file, folder, &found, &links, &missing) : 0;
        if (nothing == 1 && missing != NULL && PyTuple_GET_SIZE(missing) == 2) { /* its folder as a file */
            nothing = !folder ? 0 : answered_by_none(c->root, (size_t)c->root_len, raw, (size_t)name - 1, missing);
            PyObject *folder_part = nothing == 1 ? PyUnicode_Substring(loc_text, c->base_len, loc_len - 1) : NULL;
            canonical = folder_part ? PyUnicode_FromFormat("%U%U%U", c->own_base, folder_part,
                                                           PyTuple_GET_ITEM(missing, 1)) : NULL;
            Py_XDECREF(folder_part);
            if (nothing == 1 && canonical == NULL)
                nothing = -1;
        } else if (nothing == 1 && missing != NULL) { /* its own file: listed under the URL that names it */
            PyObject *named = PyTuple_GET_ITEM(missing, 0);
            Py_ssize_t more = n - name;
            if (!c->drop_index || !index || !PyUnicode_IS_ASCII(named) || PyUnicode_GET_LENGTH(named) != more ||
                memcmp(PyUnicode_1BYTE_DATA(named), raw + name, (size_t)more) != 0 || loc_len + more > c->max_url)
                nothing = 0;
            else {
                memcpy(at, raw + name, (size_t)more);
                at += more;
                loc_len += more;
                listed = PyUnicode_DecodeASCII(loc, loc_len, NULL);
                nothing = listed == NULL ? -1 : 1;
            }
        }
        if (nothing == 1 && links.count > 0) { /* its cluster, where it is one to list as the head gives it */
            PyObject *path_part = PyUnicode_Substring(listed ? listed : loc_text, c->base_len, loc_len);
            PyObject *own = path_part ? PyUnicode_Concat(c->own_base, path_part) : NULL;
            PyObject *stem_part = own ? PyUnicode_Substring(loc_text, c->base_len, stem) : NULL;
            PyObject *own_stem = stem_part ? PyUnicode_Concat(c->own_base, stem_part) : NULL;
            Py_ssize_t lang_len = 0, lang = html_lang_at(head, head_len, c->probe, &lang_len);
            nothing = own_stem == NULL || made_links(&links, loc_text) < 0
                          ? -1
                          : cluster_of(&links, own, own_stem, lang < 0 ? NULL : head + lang, lang_len, kept,
                                       &links_len, &conflicts, &no_self);
            Py_XDECREF(own_stem);
            Py_XDECREF(stem_part);
            Py_XDECREF(own);
            Py_XDECREF(path_part);
            if (nothing == 1 && links_len > 0) {
                x_default = x_default_of(c, &links, kept);
                nothing = x_default == NULL ? -1 : 1;
                links_len += x_default != NULL && x_default != Py_None ? PyBytes_GET_SIZE(x_default) : 0;
            }
            size_t written = (size_t)(at - *buffer);
            if (nothing == 1 && grow((void **)buffer, size, need + (size_t)links_len, 1) < 0) {
                PyErr_NoMemory();
                nothing = -1;
            }
            xml = *buffer;
            at = xml + written;
        }
        if (nothing < 0) {
            answered = -1;
            goto done;
        }
        if (nothing == 0)
            goto hand;
    }
    memcpy(at, c->frame[1], (size_t)c->frame_len[1]);
    at += c->frame_len[1];
    char *text = at;
    long long second = seconds % 86400;
    iso_day(seconds / 86400, text);
    at += 10;
    if (!c->date_only) {
        memcpy(at, "Thh:mm:ss+00:00", 15);
        digits(at + 1, second / 3600, 2);
        digits(at + 4, second / 60 % 60, 2);
        digits(at + 7, second % 60, 2);
        at += 15;
    }
    Py_ssize_t text_len = at - text;
    memcpy(at, c->frame[2], (size_t)c->frame_len[2]);
    at += c->frame_len[2];
    for (int i = 0; i < links.count; i++) {
        PyObject *element = links.element[i];
        if (kept[i]) {
            memcpy(at, PyBytes_AS_STRING(element), (size_t)PyBytes_GET_SIZE(element));
            at += PyBytes_GET_SIZE(element);
        }
    }
    if (x_default != NULL && x_default != Py_None) {
        memcpy(at, PyBytes_AS_STRING(x_default), (size_t)PyBytes_GET_SIZE(x_default));
        at += PyBytes_GET_SIZE(x_default);
    }
    memcpy(at, c->frame[3], (size_t)c->frame_len[3]);
    at += c->frame_len[3];
    double key = (double)seconds;
    if (!(c->low <= key && key <= c->high) || at - xml > c->room)
        goto hand; /* dated out of the plausible years, or too large for a block: the decision's */
    if (conflicts != NULL || no_self || canonical != NULL) { /* what the decision notes of it, by its place */
        PyObject *note = Py_BuildValue("(nOOOO)", PyList_GET_SIZE(lists[0]), relpath, canonical ? canonical : Py_None,
                                       conflicts ? conflicts : Py_None, no_self ? Py_True : Py_False);
        int appended = note == NULL ? -1 : PyList_Append(noted, note);
        Py_XDECREF(note);
        if (appended < 0) {
            answered = -1;
            goto done;
        }
    }
    PyObject *items[4] = {listed ? listed : loc_text, PyBytes_FromStringAndSize(xml, at - xml), PyFloat_FromDouble(key),
                          PyUnicode_DecodeASCII(text, text_len, NULL)};
    Py_INCREF(items[0]);
    answered = 1;
    for (int i = 0; i < 4; i++) {
        if (answered == 1 && (items[i] == NULL || PyList_Append(lists[i], items[i]) < 0))
            answered = -1;
        Py_XDECREF(items[i]);
    }
    goto done;
hand:
    if (c->heads) { /* the head read, for the decision to take, not read again */
        PyObject *read = head_read(head, head_len, seconds, parts, ended);
        PyObject *handing = read ? Py_BuildValue("(OO)", read, found ? found : Py_None) : NULL;
        if (handing == NULL || PyList_Append(handed, handing) < 0)
            answered = -1;
        Py_XDECREF(read);
        Py_XDECREF(handing);
    }
done:
    drop_links(&links);
    Py_XDECREF(x_default);
    Py_XDECREF(conflicts);
    Py_XDECREF(missing);
    Py_XDECREF(canonical);
    Py_XDECREF(listed);
    Py_XDECREF(found);
    Py_XDECREF(loc_text);
    free(head);
    Py_DECREF(encoded);
    return answered;
}

/* `mtime_block` and `head_block` (`heads`): the candidates from `args[2]` on, each listed by
 * `list_page` until one it does not answer for, whose place is returned. */
static PyObject *page_block(const Told *told, PyObject *const *args, int heads, const char *usage) {
    PageConstants c;
    if (page_constants(args[0], &c, heads, usage) < 0)
        return NULL;
    Py_ssize_t at = PyLong_AsSsize_t(args[2]);
    if (at == -1 && PyErr_Occurred())
        return NULL;
    char *buffer = NULL;
    size_t size = 0;
    for (; at >= 0 && at < PyList_GET_SIZE(args[1]); at++) { /* its size asked again: `check` is Python */
        PyObject *candidate = PyList_GET_ITEM(args[1], at);
        if (!PyTuple_Check(candidate) || PyTuple_GET_SIZE(candidate) != 2 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(candidate, 0)) || PyTuple_GET_ITEM(candidate, 1) != Py_False)
            break; /* a symlink (or not a candidate): the batch's */
        Py_INCREF(candidate); /* held while `check`, Python code, runs */
        int answered = list_page(told, &c, PyTuple_GET_ITEM(candidate, 0), args + 3, heads ? args[7] : NULL,
                                 heads ? args[8] : NULL, &buffer, &size);
        Py_DECREF(candidate);
        if (answered < 0) {
            free(buffer);
            return NULL;
        }
        if (answered == 0)
            break;
    }
    free(buffer);
    return PyLong_FromSsize_t(at);
}

/* Whether the block's arguments (the candidates and the four lists from args[3], and `handed` and
 * `noted` where `heads`) are lists. */
static int block_lists(PyObject *const *args, Py_ssize_t nargs, int heads) {
    if (nargs != (heads ? 9 : 7))
        return 0;
    for (Py_ssize_t i = 1; i < nargs; i++)
        if (i != 2 && !PyList_Check(args[i]))
            return 0;
    return 1;
}

PyDoc_STRVAR(mtime_block_doc,
             "mtime_block(constants, candidates, at, locs, xmls, keys, texts, /)\n--\n\n"
             "`quick.MtimeOnly.batch` of `candidates` from `at` on, page after page, each appended to\n"
             "the block's lists as that batch appends it, until a candidate this does not answer for:\n"
             "its place is returned (or the number of candidates), for the batch to decide it.\n"
             "`constants`: (root, base URL, the element's four parts around its URL, its lastmod and\n"
             "its hreflang links (none here), the characters a URL keeps, those the element escapes,\n"
             "all bytes; the path rules' `check`, whether an index name is dropped, whether a lastmod\n"
             "is a date only, the longest URL, the first second past the years a lastmod may be in, the\n"
             "plausible lastmods' bounds, a block's room, and the starts of the names `check` may leave\n"
             "out (a tuple of 1 to 4 lower-case ASCII words: `check` is asked only of a page whose name,\n"
             "or whose folder's, starts with one, in any case), or None (asked of every page)). It\n"
             "answers for a page that is no\n"
             "symlink, no path rule leaves out, a regular file dated from 1970 on, within the bounds,\n"
             "whose URL is not too long and holds no character the element escapes.");

static PyObject *mtime_block(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    const Told *told = listing_state(module);
    if (told == NULL)
        return NULL;
    static const char usage[] = "mtime_block(constants: tuple, candidates: list, at: int, locs: list, xmls: list, "
                                "keys: list, texts: list), the constants as `quick.MtimeOnly` gives them";
    if (!block_lists(args, nargs, 0)) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    return page_block(told, args, 0, usage);
}

PyDoc_STRVAR(head_block_doc,
             "head_block(constants, candidates, at, locs, xmls, keys, texts, handed, noted, /)\n--\n\n"
             "`mtime_block` with each page's head read (`read_head`) in place of its `stat`, for\n"
             "`quick.HeadRead.batch`: a page is listed only where its head says nothing that its row\n"
             "would show. `constants`: `mtime_block`'s (its `check` leaving out a page the decision must\n"
             "read some other way too), then the most bytes of a head, the scan's marks, `probe` (the\n"
             "bytes a page's language is looked for in), the x-default link the build adds (None, or\n"
             "(the folded language of an x-default link, its element where a URL is named or None, the\n"
             "folded language whose link's URL it names, its element to its language's end, where a\n"
             "link's language starts in its element)), `known` (a dict), `judge` and `own_base` (the\n"
             "base URL as a head's URLs are normalized). The head must be\n"
             "ended by an end of a head and certainly UTF-8, a scan must answer for it, finding at most\n"
             "64 tags (`deciding_tags_utf8`); then each deciding tag's text is looked up in\n"
             "`known`, or its shape: the text with the page's URL, where it is met once in it as a\n"
             "whole quoted value, replaced by a NUL; else with the longest end of the URL from a '/' of\n"
             "its path met once in it, followed by a quote, replaced by two NULs; else, an index page's,\n"
             "with the URL and its file's name met once as a whole quoted value, replaced by a NUL and a\n"
             "3; else, the URL a folder's (not the base URL), with the URL less its last '/' met once in\n"
             "it after a quote, replaced by a NUL and a 2. Once none is False\n"
             "there, each tag not in it is given to `judge(tag, url, shape or None)`, in order. Each\n"
             "must be True, or an hreflang link: by its text (its `<xhtml:link>` element, bytes; its\n"
             "language folded; its URL), or by its shape (its element before and after the part of\n"
             "the URL the shape replaced, bytes; its language folded; its URL before that part), or, by\n"
             "a folder's shape, a canonical naming the folder as a file (the ends of the files that would\n"
             "answer it after the folder's path, bytes; the end of its URL after the URL less its last\n"
             "'/'): the page is listed where none of those is a regular file, or, by a file's shape, a\n"
             "canonical naming that file (its name, a 1-tuple): the page is listed under that URL; where\n"
             "no other tag not known by its text is True (so may name another canonical). The links'\n"
             "elements, each once, less those of a language given two URLs, go in the page's after its\n"
             "lastmod, where one URL is the page's own (`own_base` and the URL's path), or none is and\n"
             "none may be the page's in another form, and the page's `<html lang>` (`html_lang`, in the\n"
             "first `probe` bytes) is none or one of theirs; then the x-default link, where none of\n"
             "them is one and one is in the language it names (or it names a URL). What the decision\n"
             "notes of a page listed\n"
             "so (its place in the block, its relpath, the canonical no file answers or None, the\n"
             "languages given two URLs or None, whether no link names it) is appended to `noted`.\n"
             "Python says what each tag means, and what is known of it on every page (`judge` fills\n"
             "`known`): this spells no word of it.\n"
             "The page it stops at, where its head was read, has that read, as `read_head` gives it,\n"
             "and its deciding tags where the scan found them (else None) appended to `handed`.");

static PyObject *head_block(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    const Told *told = listing_state(module);
    if (told == NULL || heads_told(module) == NULL)
        return NULL;
    if (!told->reading_told) {
        PyErr_SetString(PyExc_RuntimeError, "head_block: configure_reading first (head.py does, at import)");
        return NULL;
    }
    static const char usage[] = "head_block(constants: tuple, candidates: list, at: int, locs: list, xmls: list, "
                                "keys: list, texts: list, handed: list, noted: list), the constants as "
                                "`quick.HeadRead` gives them";
    if (!block_lists(args, nargs, 1)) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    return page_block(told, args, 1, usage);
}
#endif

static PyMethodDef methods[] = {
#ifndef _WIN32
    {"listing", (PyCFunction)listing, METH_O, listing_doc},
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL, walk_doc},
    {"mtime_block", (PyCFunction)(void (*)(void))mtime_block, METH_FASTCALL, mtime_block_doc},
    {"head_block", (PyCFunction)(void (*)(void))head_block, METH_FASTCALL, head_block_doc},
    {"html_lang", (PyCFunction)(void (*)(void))html_lang, METH_FASTCALL, html_lang_doc},
    {"read_head", (PyCFunction)(void (*)(void))read_head, METH_FASTCALL, read_head_doc},
    {"configure_reading", (PyCFunction)(void (*)(void))configure_reading, METH_FASTCALL, configure_reading_doc},
    {"configure_listing", (PyCFunction)(void (*)(void))configure_listing, METH_FASTCALL, configure_listing_doc},
#endif
    {"deciding_tags_utf8", (PyCFunction)(void (*)(void))deciding_tags_utf8, METH_FASTCALL, deciding_tags_utf8_doc},
    {"read_tag", (PyCFunction)read_tag, METH_O, read_tag_doc},
    {"deciding_tags", (PyCFunction)(void (*)(void))deciding_tags, METH_FASTCALL, deciding_tags_doc},
    {"configure_heads", (PyCFunction)(void (*)(void))configure_heads, METH_FASTCALL, configure_heads_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef_Slot slots[] = {
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "sitemapgen.pages._scan",
    "The optional compiled scanner of plain heads (see scanner.read_fast), and lister of directories.",
    sizeof(Told),
    methods, slots,
    NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scan(void) {
    return PyModuleDef_Init(&module_def);
}
