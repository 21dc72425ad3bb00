/* The optional compiled scanner: `deciding_tags`, the pure-Python `scanner.read_fast`'s
 * finding of a plain head's deciding tags, done in one pass in C.
 *
 * It answers only where it can answer exactly as the Python scanner does, and hands every
 * other head back (None), so the Python scanner reads it as before: an accelerator, never a
 * second reader. `tests/pages/test_scan_c.py` holds the two to the same answers.
 *
 * Plain markup, as `scanner._PLAIN_HEAD` and `scanner._SKIPPED` define it, is read left to
 * right: text (any characters but '<'), plain comments, script and style elements (skipped
 * whole), a doctype, end tags, and start tags whose attributes are plain. Where the Python
 * patterns' Unicode white space (`\s`) could differ from ASCII white space inside a tag, or
 * a character could lower-case to ASCII (U+0130, U+212A) or is NUL, this hands the head
 * back rather than decide. A meta or link start tag whose text holds one of `marks` (lower
 * case; '&' is one of them) is a deciding tag: its text is in the answer, in page order.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_MARKS 16

typedef struct {
    const Py_UCS1 *text[MAX_MARKS];
    Py_ssize_t len[MAX_MARKS];
    int count;
    unsigned int first[128]; /* for each ASCII character, the marks it starts (bit m: mark m) */
} Marks;

static inline int ascii_space(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Inside a tag's markup (not a quoted value): a character the Python patterns might read
 * otherwise than as printable ASCII or ASCII white space. */
static inline int odd(Py_UCS4 c) {
    return (c < 0x20 && !ascii_space(c)) || c >= 0x7f;
}

/* Anywhere: NUL (the Python scanner hands such a head to bs4), or a character whose lower
 * case is longer (U+0130) or ASCII (U+0212A). */
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

enum { NAME_OTHER, NAME_SIGNAL, NAME_RAW };

/* The scan, once per string kind: the answer (a new list), Py_None (a new reference: ask the
 * Python scanner), or NULL with an exception set. */
#define DEFINE_SCAN(NAME, T)                                                                   \
    static PyObject *NAME(PyObject *str, const T *s, Py_ssize_t n, const Marks *marks) {       \
        PyObject *found = PyList_New(0);                                                       \
        if (found == NULL)                                                                     \
            return NULL;                                                                       \
        for (Py_ssize_t k = 0; k < n; k++)                                                     \
            if (refused(s[k]))                                                                 \
                goto hand_back;                                                                \
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
                j = i + 9;                                                                     \
                while (j < n && s[j] != '>' && s[j] != '<') {                                  \
                    j++;                                                                       \
                }                                                                              \
                if (j >= n || s[j] == '<')                                                     \
                    goto hand_back;                                                            \
                i = j + 1;                                                                     \
                continue;                                                                      \
            }                                                                                  \
            if (c == '/') {                                                                    \
                if (i + 2 >= n || !ascii_alpha(s[i + 2]))                                      \
                    goto hand_back;                                                            \
                Py_ssize_t j = i + 3;                                                          \
                while (j < n && s[j] != '>' && s[j] != '<') {                                  \
                    j++;                                                                       \
                }                                                                              \
                if (j >= n || s[j] == '<')                                                     \
                    goto hand_back;                                                            \
                i = j + 1;                                                                     \
                continue;                                                                      \
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
            char name[8];                                                                      \
            int kind = NAME_OTHER;                                                             \
            for (Py_ssize_t k = 0; k < name_len && k < 6; k++)                                 \
                name[k] = (char)ascii_lower(s[i + 1 + k]);                                     \
            if (name_len >= 5 && memcmp(name, "style", 5) == 0) {                              \
                if (name_len != 5)                                                             \
                    goto hand_back; /* "style-x" and the like: the Python scanner's to say */ \
                kind = NAME_RAW;                                                               \
            } else if (name_len >= 6 && memcmp(name, "script", 6) == 0) {                      \
                if (name_len != 6)                                                             \
                    goto hand_back;                                                            \
                kind = NAME_RAW;                                                               \
            } else if (name_len == 4 && (memcmp(name, "meta", 4) == 0 || memcmp(name, "link", 4) == 0)) { \
                kind = NAME_SIGNAL;                                                            \
            }                                                                                  \
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
                Py_ssize_t r = q;                                                              \
                while (r < n) {                                                                \
                    Py_UCS4 e = s[r];                                                          \
                    if (ascii_space(e) || e == '"' || e == '\'' || e == '<' || e == '>' || e == '/' || e == '=') \
                        break;                                                                 \
                    if (odd(e))                                                                \
                        goto hand_back;                                                        \
                    r++;                                                                       \
                }                                                                              \
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
                        Py_ssize_t u = t + 1;                                                  \
                        while (u < n && s[u] != quote) {                                       \
                            if (s[u] == '<' || s[u] == '>')                   \
                                goto hand_back;                                                \
                            u++;                                                               \
                        }                                                                      \
                        if (u >= n)                                                            \
                            goto hand_back;                                                    \
                        p = u + 1;                                                             \
                    } else {                                                                   \
                        Py_ssize_t u = t;                                                      \
                        while (u < n) {                                                        \
                            Py_UCS4 e = s[u];                                                  \
                            if (ascii_space(e) || e == '"' || e == '\'' || e == '<' || e == '>' || e == '=' || e == '`') \
                                break;                                                         \
                            if (odd(e))                                                        \
                                goto hand_back;                                                \
                            u++;                                                               \
                        }                                                                      \
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
                        while (v < n && Py_UNICODE_ISSPACE(s[v]))                              \
                            v++;                                                               \
                        Py_ssize_t k = 0;                                                      \
                        while (k < name_len && v + k < n && ascii_lower(s[v + k]) == (Py_UCS4)name[k]) \
                            k++;                                                               \
                        if (k == name_len) {                                                   \
                            Py_ssize_t w = v + k;                                              \
                            while (w < n && Py_UNICODE_ISSPACE(s[w]))                          \
                                w++;                                                           \
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
            if (kind == NAME_SIGNAL) {                                                         \
                int deciding = 0;                                                              \
                for (Py_ssize_t at = i + 1; at < gt && !deciding; at++) {                      \
                    Py_UCS4 first = ascii_lower(s[at]);                                        \
                    unsigned int starting = first < 128 ? marks->first[first] : 0;             \
                    for (int m = 0; starting != 0; m++, starting >>= 1) {                      \
                        if (!(starting & 1))                                                   \
                            continue;                                                          \
                        const Py_UCS1 *word = marks->text[m];                                  \
                        Py_ssize_t len = marks->len[m];                                        \
                        if (at + len > gt)                                                     \
                            continue;                                                          \
                        Py_ssize_t k = 1;                                                      \
                        while (k < len && ascii_lower(s[at + k]) == word[k])                   \
                            k++;                                                               \
                        if (k == len) {                                                        \
                            deciding = 1;                                                      \
                            break;                                                             \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
                if (deciding) {                                                                \
                    PyObject *tag = PyUnicode_Substring(str, i, gt + 1);                       \
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

#define NEXT_OPEN(s, i, n) next_open_ucs1(s, i, n)
DEFINE_SCAN(scan_ucs1, Py_UCS1)
#undef NEXT_OPEN
#define NEXT_OPEN(s, i, n) next_open_ucs2(s, i, n)
DEFINE_SCAN(scan_ucs2, Py_UCS2)
#undef NEXT_OPEN
#define NEXT_OPEN(s, i, n) next_open_ucs4(s, i, n)
DEFINE_SCAN(scan_ucs4, Py_UCS4)

PyDoc_STRVAR(deciding_tags_doc,
             "deciding_tags(text, marks, /)\n--\n\n"
             "The text of each meta and link tag of plain head text that holds one of `marks` (a\n"
             "tuple of lower-case ASCII words), in order; or None: ask the Python scanner.");

static PyObject *deciding_tags(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "deciding_tags(text: str, marks: tuple[str, ...])");
        return NULL;
    }
    PyObject *text = args[0], *words = args[1];
    Marks marks;
    memset(marks.first, 0, sizeof marks.first);
    marks.count = (int)PyTuple_GET_SIZE(words);
    if (marks.count > MAX_MARKS) {
        PyErr_SetString(PyExc_ValueError, "too many marks");
        return NULL;
    }
    for (int m = 0; m < marks.count; m++) {
        PyObject *word = PyTuple_GET_ITEM(words, m);
        if (!PyUnicode_Check(word) || !PyUnicode_IS_ASCII(word) || PyUnicode_GET_LENGTH(word) == 0) {
            PyErr_SetString(PyExc_ValueError, "marks must be non-empty ASCII words");
            return NULL;
        }
        marks.text[m] = PyUnicode_1BYTE_DATA(word);
        marks.len[m] = PyUnicode_GET_LENGTH(word);
        marks.first[ascii_lower(marks.text[m][0]) & 0x7f] |= 1u << m;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_ucs1(text, PyUnicode_1BYTE_DATA(text), n, &marks);
    case PyUnicode_2BYTE_KIND:
        return scan_ucs2(text, PyUnicode_2BYTE_DATA(text), n, &marks);
    default:
        return scan_ucs4(text, PyUnicode_4BYTE_DATA(text), n, &marks);
    }
}

PyDoc_STRVAR(read_tag_doc,
             "read_tag(text, /)\n--\n\n"
             "A plain meta or link tag's name and attributes, as `scanner._read_match` reads them\n"
             "(names lower-cased; a name given twice keeps its last value); None for anything else,\n"
             "and for a tag with a '&' in a value (its character references are Python's to read).");

static PyObject *read_tag(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "read_tag(text: str)");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
#define AT(k) PyUnicode_READ(kind, data, (k))
    if (n < 6 || AT(0) != '<' || AT(n - 1) != '>')
        Py_RETURN_NONE;
    char name[5] = {0};
    for (int k = 0; k < 4; k++) {
        Py_UCS4 c = AT(1 + k);
        name[k] = c < 128 ? (char)ascii_lower(c) : '?';
    }
    if (strcmp(name, "meta") != 0 && strcmp(name, "link") != 0)
        Py_RETURN_NONE;
    Py_UCS4 after = AT(5);
    if (!(ascii_space(after) || after == '/' || after == '>'))
        Py_RETURN_NONE;
    PyObject *attrs = PyDict_New();
    if (attrs == NULL)
        return NULL;
    Py_ssize_t p = 5;
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
        Py_ssize_t r = q;
        while (r < n) {
            Py_UCS4 e = AT(r);
            if (ascii_space(e) || e == '"' || e == '\'' || e == '<' || e == '>' || e == '/' || e == '=')
                break;
            if (odd(e))
                goto other;
            r++;
        }
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
                Py_ssize_t u = t;
                while (u < n) {
                    Py_UCS4 e = AT(u);
                    if (ascii_space(e) || e == '"' || e == '\'' || e == '<' || e == '>' || e == '=' || e == '`')
                        break;
                    if (odd(e) || e == '&')
                        break;
                    u++;
                }
                if (u == t || (u < n && (odd(AT(u)) || AT(u) == '&'))) {
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
    PyObject *tag_name = PyUnicode_FromStringAndSize(name, 4);
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

static PyMethodDef methods[] = {
    {"read_tag", (PyCFunction)read_tag, METH_O, read_tag_doc},
    {"deciding_tags", (PyCFunction)(void (*)(void))deciding_tags, METH_FASTCALL, deciding_tags_doc},
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
    "The optional compiled scanner of plain heads (see scanner.read_fast).", 0, methods, slots,
    NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scan(void) {
    return PyModuleDef_Init(&module_def);
}
