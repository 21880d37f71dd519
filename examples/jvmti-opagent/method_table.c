/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L /* pthread, clock_gettime, ftruncate */
#include "method_table.h"

#include <errno.h>
#include <fcntl.h>
#include <jvmticmlr.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jitscope/formats/jvm_table_format.h"
#include "vm_structs.h"

/* How often the naming thread wakes to name queued classes and read every slot again. */
#define CHECK_INTERVAL_MS 100
/* A batch of records is written once it holds this much. */
#define FLUSH_BYTES (256 * 1024)
/* A slot that holds less than this holds no Method* (HotSpot marks a freed method's slot with a
 * small constant). */
#define FIRST_POINTER 4096u
#define JVM_ACC_NATIVE 0x0100
#define JVM_ACC_ABSTRACT 0x0400

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile unsigned long failures;
static void count_failure(void) { __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED); }

unsigned long method_table_failures(void) {
  return __atomic_exchange_n(&failures, 0, __ATOMIC_RELAXED);
}

static void deallocate(jvmtiEnv* jvmti, void* p) {
  if (p != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char*)p);
}

/* ---- Records: gathered in a buffer, written whole. ---- */

struct buffer {
  char* data;
  size_t size, capacity;
  int failed; /* an allocation failed: the buffer's records are dropped */
};

static void* room(struct buffer* b, size_t more) {
  if (b->failed) return NULL;
  if (b->size + more > b->capacity) {
    size_t capacity = b->capacity != 0 ? b->capacity : 4096;
    char* grown;
    while (capacity < b->size + more) capacity *= 2;
    grown = realloc(b->data, capacity);
    if (grown == NULL) {
      b->failed = 1;
      return NULL;
    }
    b->data = grown;
    b->capacity = capacity;
  }
  b->size += more;
  return b->data + b->size - more;
}

static void put(struct buffer* b, const void* bytes, size_t size) {
  void* at = room(b, size);
  if (at != NULL && size != 0) memcpy(at, bytes, size);
}

/* Starts a record; finish_record pads it to 8 bytes and fills in its size. */
static size_t start_record(struct buffer* b, uint32_t type, uint64_t time_ns) {
  struct JitscopeJvmRecordHeader header;
  const size_t at = b->size;
  header.type = type;
  header.size = 0;
  header.time_ns = time_ns;
  put(b, &header, sizeof(header));
  return at;
}

static void finish_record(struct buffer* b, size_t at) {
  static const char zeros[8] = {0};
  uint32_t size;
  put(b, zeros, (8 - b->size % 8) % 8);
  if (b->failed) return;
  size = (uint32_t)(b->size - at);
  memcpy(b->data + at + offsetof(struct JitscopeJvmRecordHeader, size), &size, sizeof(size));
}

/* The table's descriptor; -1 while closed. Guarded by file_lock, which also keeps writes whole
 * against each other and against the close. */
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static int table_fd = -1;

/* Writes the buffer's records and empties it. A write cut short (a full disk) is truncated back,
 * so that the file holds whole records only. */
static void flush(struct buffer* b) {
  if (b->failed) {
    count_failure();
  } else if (b->size != 0) {
    pthread_mutex_lock(&file_lock);
    if (table_fd >= 0) {
      const off_t end = lseek(table_fd, 0, SEEK_END);
      size_t written = 0;
      while (written < b->size) {
        const ssize_t n = write(table_fd, b->data + written, b->size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += (size_t)n;
      }
      if (written != b->size) {
        count_failure();
        if (end >= 0 && ftruncate(table_fd, end) != 0) count_failure();
      }
    }
    pthread_mutex_unlock(&file_lock);
  }
  b->size = 0;
  b->failed = 0;
}

static void release_buffer(struct buffer* b) {
  free(b->data);
  memset(b, 0, sizeof(*b));
}

/* ---- What is known: the classes and methods named so far. Guarded by work_lock. ---- */

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static struct method_layout layout;
/* Whether this JVM's interpreter gives a method its counters on its first call (decided once,
 * when the naming thread starts): then only the methods that ran are named. */
static int interpreter_counts;

/* `array` (`count` elements of `size` bytes), grown if need be to hold one more (to `first`
 * elements at first, then twice as many): NULL when memory is short, `array` left as it was. */
static void* room_for_one(void* array, size_t* capacity, size_t count, size_t size, size_t first) {
  if (count == *capacity) {
    const size_t grown_capacity = *capacity != 0 ? *capacity * 2 : first;
    void* grown = realloc(array, grown_capacity * size);
    if (grown == NULL) return NULL;
    *capacity = grown_capacity;
    return grown;
  }
  return array;
}

struct class_names {
  char* name; /* "pkg.Outer$Inner"; NULL until a method of the class is named */
  char* file; /* "pkg/Outer.java", or NULL */
  /* The class (a weak global reference: it may be unloaded; NULL once it is, or when its count
   * cannot be read) and its java.lang.Class.classRedefinedCount when last read, which HotSpot
   * increments at each redefinition of the class (RedefineClasses, at a safepoint): a slot may
   * hold the same Method* after two redefinitions, but never the same count. */
  jweak klass;
  jint redefinitions;
  int redefined; /* check_slots': the count changed since the last check */
};
static struct class_names* classes;
static size_t class_count, class_capacity;

struct known_method {
  jmethodID id;
  const void* method; /* what its slot held when last read; NULL once it is gone */
  uint64_t since;     /* from when the slot held it */
  uint32_t class_index;
  uint32_t state; /* enum naming */
};
enum naming {
  kUnnamed, /* not named yet (it has not run): in `unnamed` */
  kNamed,   /* its METHOD record is written */
  kNotNamed /* abstract (it never runs), or JVMTI could not describe it */
};
static struct known_method* known;
static size_t known_count, known_capacity;
/* The known methods not named yet, by index into `known`. */
static uint32_t* unnamed;
static size_t unnamed_count, unnamed_capacity;
/* The Method*s known and not gone, for finding one fast: open addressing over `known` indexes
 * + 1 (0: empty); erased entries are kTombstone. */
static uint32_t* by_method;
static size_t by_method_capacity, by_method_used;
#define TOMBSTONE UINT32_MAX
/* check_slots' list of the known methods whose slots changed, by index into `known`. */
static uint32_t* replaced;
static size_t replaced_capacity;
/* list_class's list of the methods of the class it lists that ran, by index into `known`. */
static uint32_t* listed_ran;
static size_t listed_ran_capacity;
static uint64_t last_check_ns;
/* java.lang.Class.classRedefinedCount; NULL when this JVM has no such field (then only the slots
 * tell a redefinition). */
static jfieldID redefinitions_field;

static size_t slot_of(const void* method) {
  uint64_t h = (uint64_t)(uintptr_t)method * 0x9e3779b97f4a7c15u;
  return (size_t)(h >> 20) & (by_method_capacity - 1);
}

/* The index + 1 in `known` of `method`, 0 when it is not known. */
static uint32_t find_known(const void* method) {
  size_t i;
  if (by_method_capacity == 0) return 0;
  for (i = slot_of(method);; i = (i + 1) & (by_method_capacity - 1)) {
    const uint32_t v = by_method[i];
    if (v == 0) return 0;
    if (v != TOMBSTONE && known[v - 1].method == method) return v;
  }
}

static int rehash(size_t capacity) {
  uint32_t* table = calloc(capacity, sizeof(*table));
  size_t k;
  if (table == NULL) return 0;
  free(by_method);
  by_method = table;
  by_method_capacity = capacity;
  by_method_used = 0;
  for (k = 0; k < known_count; ++k) {
    size_t i;
    if (known[k].method == NULL) continue;
    for (i = slot_of(known[k].method); by_method[i] != 0; i = (i + 1) & (capacity - 1)) {
    }
    by_method[i] = (uint32_t)(k + 1);
    ++by_method_used;
  }
  return 1;
}

/* Adds a method (its entry in `known` is set already, at index k). */
static void index_method(size_t k) {
  size_t i;
  if ((by_method_used + 1) * 2 > by_method_capacity) {
    if (!rehash(by_method_capacity != 0 ? by_method_capacity * 2 : 4096)) return;
    return; /* the rehash indexed every known method, k included */
  }
  for (i = slot_of(known[k].method); by_method[i] != 0 && by_method[i] != TOMBSTONE;
       i = (i + 1) & (by_method_capacity - 1)) {
  }
  by_method[i] = (uint32_t)(k + 1);
  ++by_method_used;
}

static void unindex_method(size_t k) {
  size_t i;
  if (by_method_capacity == 0) return;
  for (i = slot_of(known[k].method); by_method[i] != 0; i = (i + 1) & (by_method_capacity - 1)) {
    if (by_method[i] == k + 1) {
      by_method[i] = TOMBSTONE;
      return;
    }
  }
}

/* `jni` NULL: at VM exit, when the classes' references are left to the dying VM. */
static void forget_everything(JNIEnv* jni) {
  size_t i;
  for (i = 0; i < class_count; ++i) {
    free(classes[i].name);
    free(classes[i].file);
    if (jni != NULL && classes[i].klass != NULL) (*jni)->DeleteWeakGlobalRef(jni, classes[i].klass);
  }
  free(classes);
  classes = NULL;
  class_count = class_capacity = 0;
  free(known);
  known = NULL;
  known_count = known_capacity = 0;
  free(unnamed);
  unnamed = NULL;
  unnamed_count = unnamed_capacity = 0;
  free(by_method);
  by_method = NULL;
  by_method_capacity = by_method_used = 0;
  free(replaced);
  replaced = NULL;
  replaced_capacity = 0;
  free(listed_ran);
  listed_ran = NULL;
  listed_ran_capacity = 0;
}

/* "Lpkg/Outer$Inner;" → "pkg.Outer$Inner". */
static char* class_name_of(const char* signature) {
  const char* p = signature[0] == 'L' ? signature + 1 : signature;
  const size_t n = strcspn(p, ";");
  char* name = malloc(n + 1);
  size_t i;
  if (name == NULL) return NULL;
  for (i = 0; i < n; ++i) name[i] = p[i] == '/' ? '.' : p[i];
  name[n] = '\0';
  return name;
}

/* The source file with the class's package path: "pkg/Outer.java". */
static char* source_path_of(const char* signature, const char* file) {
  const char* start = signature[0] == 'L' ? signature + 1 : signature;
  const char* slash = strrchr(start, '/');
  const size_t package = slash != NULL ? (size_t)(slash - start + 1) : 0;
  char* path = malloc(package + strlen(file) + 1);
  if (path == NULL) return NULL;
  memcpy(path, start, package);
  strcpy(path + package, file);
  return path;
}

static const void* slot_value(jmethodID id) {
  return *(const void* const volatile*)(const void*)id;
}

/* A method's names and lines, as a METHOD record says them: from HotSpot's structures
 * (describe_method) or from JVMTI. */
struct method_names {
  uint32_t access_flags;
  const char* name;
  size_t name_size;
  const char* signature;
  size_t signature_size;
  const struct method_line* lines;
  size_t line_count;
};

static void put_method_record(struct buffer* out, const void* method,
                              const struct class_names* owner, const struct method_names* names,
                              uint64_t since) {
  struct JitscopeJvmMethod m;
  size_t at, i;
  memset(&m, 0, sizeof(m));
  m.method = (uint64_t)(uintptr_t)method;
  bytecodes_of(&layout, method, &m.code_base, &m.code_size);
  m.flags = (names->access_flags & JVM_ACC_NATIVE) != 0 ? JITSCOPE_JVM_METHOD_NATIVE : 0;
  m.class_size = (uint32_t)strlen(owner->name);
  m.name_size = (uint32_t)names->name_size;
  m.signature_size = (uint32_t)names->signature_size;
  m.file_size = owner->file != NULL ? (uint32_t)strlen(owner->file) : 0;
  m.line_count = (uint32_t)names->line_count;
  at = start_record(out, JITSCOPE_JVM_RECORD_METHOD, since);
  put(out, &m, sizeof(m));
  for (i = 0; i < names->line_count; ++i) {
    struct JitscopeJvmLine line;
    line.start_bci = names->lines[i].start_bci;
    line.line = names->lines[i].line;
    put(out, &line, sizeof(line));
  }
  put(out, owner->name, m.class_size);
  put(out, names->name, m.name_size);
  put(out, names->signature, m.signature_size);
  if (owner->file != NULL) put(out, owner->file, m.file_size);
  finish_record(out, at);
}

/* `id`'s line table from JVMTI into `lines` (NULL and 0 when it has none); the caller frees it. */
static void jvmti_lines(jvmtiEnv* jvmti, jmethodID id, struct method_line** lines, size_t* count) {
  jvmtiLineNumberEntry* entries = NULL;
  jint entry_count = 0, i;
  *lines = NULL;
  *count = 0;
  if ((*jvmti)->GetLineNumberTable(jvmti, id, &entry_count, &entries) != JVMTI_ERROR_NONE) return;
  if (entry_count > 0 && (*lines = malloc((size_t)entry_count * sizeof(**lines))) != NULL) {
    for (i = 0; i < entry_count; ++i) {
      (*lines)[i].start_bci = (uint32_t)entries[i].start_location;
      (*lines)[i].line = (uint32_t)entries[i].line_number;
    }
    *count = (size_t)entry_count;
  }
  deallocate(jvmti, entries);
}

/* The METHOD record of `id`, whose slot holds `method`, from HotSpot's structures: what JVMTI
 * would say, without a call into the VM. A line table that cannot be a method's is asked of
 * JVMTI. Returns kNotNamed for a method not to name (abstract: it never runs), kUnnamed when the
 * structures cannot be read as a method's. */
static uint32_t put_described_method(jvmtiEnv* jvmti, struct buffer* out, jmethodID id,
                                     const void* method, const struct class_names* owner,
                                     uint64_t since) {
  struct method_description d;
  struct method_names names;
  struct method_line some[64];
  struct method_line* lines = some;
  long count = 0;
  if (!describe_method(&layout, method, &d)) return kUnnamed;
  if ((d.access_flags & JVM_ACC_ABSTRACT) != 0) return kNotNamed;
  if (d.line_table != NULL && (d.access_flags & JVM_ACC_NATIVE) == 0) {
    count = decode_line_table(d.line_table, d.code_size, some, 64);
    if (count > 64 && (lines = malloc((size_t)count * sizeof(*lines))) != NULL) {
      count = decode_line_table(d.line_table, d.code_size, lines, (size_t)count);
    }
  }
  if (lines == NULL || count < 0) {
    size_t asked = 0;
    if (lines != some) free(lines);
    jvmti_lines(jvmti, id, &lines, &asked);
    count = (long)asked;
  }
  names.access_flags = d.access_flags;
  names.name = d.name;
  names.name_size = d.name_size;
  names.signature = d.signature;
  names.signature_size = d.signature_size;
  names.lines = lines;
  names.line_count = (size_t)count;
  put_method_record(out, method, owner, &names, since);
  if (lines != some) free(lines);
  return kNamed;
}

/* The METHOD record of `id`, whose slot holds `method`, from JVMTI. */
static uint32_t put_asked_method(jvmtiEnv* jvmti, struct buffer* out, jmethodID id,
                                 const void* method, const struct class_names* owner,
                                 uint64_t since) {
  char *name = NULL, *signature = NULL;
  jint modifiers = 0;
  struct method_names names;
  struct method_line* lines = NULL;
  size_t line_count = 0;
  if ((*jvmti)->GetMethodModifiers(jvmti, id, &modifiers) != JVMTI_ERROR_NONE ||
      (modifiers & JVM_ACC_ABSTRACT) != 0) {
    return kNotNamed;
  }
  if ((*jvmti)->GetMethodName(jvmti, id, &name, &signature, NULL) != JVMTI_ERROR_NONE) {
    count_failure();
    return kNotNamed;
  }
  if ((modifiers & JVM_ACC_NATIVE) == 0) jvmti_lines(jvmti, id, &lines, &line_count);
  names.access_flags = (uint32_t)modifiers;
  names.name = name;
  names.name_size = strlen(name);
  names.signature = signature;
  names.signature_size = strlen(signature);
  names.lines = lines;
  names.line_count = line_count;
  put_method_record(out, method, owner, &names, since);
  free(lines);
  deallocate(jvmti, name);
  deallocate(jvmti, signature);
  return kNamed;
}

/* Appends a METHOD record for `id`, whose slot holds `method`, of class `class_index`, from
 * HotSpot's structures where it can, else from JVMTI. The slot is read again after: a method
 * gone meanwhile (its memory may be freed, and hold anything) is not named from what was read.
 * Returns kNamed; kNotNamed when the method is not one to name (abstract: it never runs) or JVMTI
 * cannot describe it; kUnnamed when its slot changed (the next check sees why). */
static uint32_t put_method(jvmtiEnv* jvmti, struct buffer* out, jmethodID id, const void* method,
                           uint32_t class_index, uint64_t since) {
  const struct class_names* owner = &classes[class_index];
  const size_t at = out->size;
  uint32_t state = put_described_method(jvmti, out, id, method, owner, since);
  if (state == kUnnamed) state = put_asked_method(jvmti, out, id, method, owner, since);
  if (slot_value(id) != method) {
    out->size = at;
    return kUnnamed;
  }
  return state;
}

/* The classRedefinedCount of `klass` (a strong reference); -1 when this JVM has no such field. */
static jint redefinitions_of(JNIEnv* jni, jclass klass) {
  if (redefinitions_field == NULL) return -1;
  return (*jni)->GetIntField(jni, klass, redefinitions_field);
}

/* The same of a class held by a weak reference; -1 also when the class was unloaded. */
static jint followed_redefinitions(JNIEnv* jni, jweak klass) {
  jobject held = (*jni)->NewLocalRef(jni, klass);
  jint count;
  if (held == NULL) return -1;
  count = redefinitions_of(jni, held);
  (*jni)->DeleteLocalRef(jni, held);
  return count;
}

/* A class whose names are read when the first of its methods is named. `follow`: the class, for
 * check_slots to follow its redefinitions, redefined `redefinitions` times before its methods
 * were listed (-1: not known); NULL: not followed (the table closes, or the count is unknown). */
static int add_class(JNIEnv* jni, jclass follow, jint redefinitions, uint32_t* index) {
  struct class_names* grown =
      room_for_one(classes, &class_capacity, class_count, sizeof(*classes), 1024);
  if (grown == NULL) return 0;
  classes = grown;
  classes[class_count].name = NULL;
  classes[class_count].file = NULL;
  classes[class_count].klass = NULL;
  classes[class_count].redefinitions = redefinitions;
  classes[class_count].redefined = 0;
  if (follow != NULL && redefinitions >= 0 &&
      (classes[class_count].klass = (*jni)->NewWeakGlobalRef(jni, follow)) == NULL) {
    count_failure(); /* its redefinitions are told by its slots alone */
  }
  *index = (uint32_t)class_count++;
  return 1;
}

/* The names of the class that declares `method` from HotSpot's structures, into `names`; 0 when
 * they cannot be read so, or the class is hidden (JVMTI writes the last '+' of its name as '.').
 */
static int described_class_names(const void* method, struct class_names* names) {
  const char *name, *file;
  uint16_t name_size, file_size;
  char* signature;
  if (!describe_class(&layout, method, &name, &name_size, &file, &file_size) ||
      memchr(name, '+', name_size) != NULL || (signature = malloc(name_size + 3u)) == NULL) {
    return 0;
  }
  /* As GetClassSignature gives it: "Lpkg/Outer$Inner;". */
  signature[0] = 'L';
  memcpy(signature + 1, name, name_size);
  signature[name_size + 1] = ';';
  signature[name_size + 2] = '\0';
  names->name = class_name_of(signature);
  if (names->name != NULL && file != NULL) {
    char* file_name = malloc(file_size + 1u);
    if (file_name != NULL) {
      memcpy(file_name, file, file_size);
      file_name[file_size] = '\0';
      names->file = source_path_of(signature, file_name);
      free(file_name);
    }
  }
  free(signature);
  return names->name != NULL;
}

/* The names of the class that declares `id` from JVMTI, into `names` (`listed`: the class, or
 * NULL). */
static int asked_class_names(jvmtiEnv* jvmti, JNIEnv* jni, jmethodID id, jclass listed,
                             struct class_names* names) {
  char *signature = NULL, *file = NULL;
  jclass klass = listed;
  if (klass == NULL && (*jvmti)->GetMethodDeclaringClass(jvmti, id, &klass) != JVMTI_ERROR_NONE)
    return 0;
  if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
    names->name = class_name_of(signature);
    if (names->name != NULL && (*jvmti)->GetSourceFileName(jvmti, klass, &file) == JVMTI_ERROR_NONE)
      names->file = source_path_of(signature, file);
  }
  deallocate(jvmti, file);
  deallocate(jvmti, signature);
  if (listed == NULL) (*jni)->DeleteLocalRef(jni, klass);
  return names->name != NULL;
}

/* Reads the names of the class of known method `m` (its class_index's), unless they are read:
 * from HotSpot's structures where it can, else from JVMTI (`listed`: the class, or NULL). The
 * method's slot is read again after: names read from a method gone meanwhile are dropped.
 * Returns 1 when the names are read, 0 when they cannot be, -1 when the slot changed. */
static int read_class_names(jvmtiEnv* jvmti, JNIEnv* jni, const struct known_method* m,
                            jclass listed) {
  struct class_names* names = &classes[m->class_index];
  if (names->name != NULL) return 1;
  if (!described_class_names(m->method, names) &&
      !asked_class_names(jvmti, jni, m->id, listed, names)) {
    return 0;
  }
  if (slot_value(m->id) != m->method) {
    free(names->name);
    free(names->file);
    names->name = names->file = NULL;
    return -1;
  }
  return 1;
}

static int add_unnamed(size_t k) {
  uint32_t* grown = room_for_one(unnamed, &unnamed_capacity, unnamed_count, sizeof(*unnamed), 8192);
  if (grown == NULL) return 0;
  unnamed = grown;
  unnamed[unnamed_count++] = (uint32_t)k;
  return 1;
}

/* A method whose slot holds `method` from `since` on, to be named once it has run. */
static int add_known(jmethodID id, const void* method, uint32_t class_index, uint64_t since) {
  struct known_method* grown =
      room_for_one(known, &known_capacity, known_count, sizeof(*known), 8192);
  if (grown == NULL) return 0;
  known = grown;
  known[known_count].id = id;
  known[known_count].method = method;
  known[known_count].since = since;
  known[known_count].class_index = class_index;
  known[known_count].state = kUnnamed;
  index_method(known_count++);
  return add_unnamed(known_count - 1);
}

/* Marks the classes redefined since the last check (their classRedefinedCount changed), and stops
 * following those unloaded (their slots tell it). */
static void read_redefinitions(JNIEnv* jni) {
  size_t i;
  for (i = 0; i < class_count; ++i) {
    struct class_names* c = &classes[i];
    jint count;
    c->redefined = 0;
    if (c->klass == NULL) continue;
    count = followed_redefinitions(jni, c->klass);
    if (count < 0) {
      (*jni)->DeleteWeakGlobalRef(jni, c->klass);
      c->klass = NULL;
    } else if (count != c->redefinitions) {
      c->redefinitions = count;
      c->redefined = 1;
    }
  }
}

/* Reads every known method's class's count of redefinitions (`jni` NULL: not), then every known
 * method's slot again: a named method whose slot changed, or whose class was redefined, is ended
 * at the last check; its slot's Method* now is known from after the counts were read on, to be
 * named once it has run. A slot can hold the same Method* after its class was redefined twice or
 * more since the last check (HotSpot reuses the memory of the methods it frees at once), and
 * that is another method or version: only the count tells. The check's time is taken before the
 * counts are read (a redefinition they miss comes after it: the next check ends the entries at
 * it), and the new Method*s are known from a time taken after (reading a count waits for a
 * redefinition under way, the slots do not: an entry begun before a redefinition the next check
 * sees is ended where it began, empty). Every changed slot's old Method* is ended and forgotten
 * before any new one is looked up: the methods a redefinition frees hold the class's next
 * version's methods after the next one, so one slot's new Method* can be another's old one, and
 * it is not known any more. */
static void check_slots(JNIEnv* jni, struct buffer* out) {
  const uint64_t now = now_ns();
  uint64_t since = now;
  size_t k, count = 0, i;
  if (jni != NULL) {
    read_redefinitions(jni);
    since = now_ns();
  }
  for (k = 0; k < known_count; ++k) {
    struct known_method* m = &known[k];
    uint32_t* grown;
    if (m->method == NULL ||
        (slot_value(m->id) == m->method && (jni == NULL || !classes[m->class_index].redefined))) {
      continue;
    }
    if (m->state == kNamed) {
      struct JitscopeJvmEnd end;
      const size_t at = start_record(out, JITSCOPE_JVM_RECORD_END, since);
      end.method = (uint64_t)(uintptr_t)m->method;
      end.valid_until_ns = last_check_ns > m->since ? last_check_ns : m->since;
      put(out, &end, sizeof(end));
      finish_record(out, at);
    }
    unindex_method(k);
    m->method = NULL;
    grown = room_for_one(replaced, &replaced_capacity, count, sizeof(*replaced), 64);
    if (grown == NULL) {
      count_failure(); /* the method is not followed any more */
      continue;
    }
    replaced = grown;
    replaced[count++] = (uint32_t)k;
  }
  for (i = 0; i < count; ++i) {
    struct known_method* m = &known[replaced[i]];
    const void* current = slot_value(m->id);
    if ((uintptr_t)current >= FIRST_POINTER && find_known(current) == 0) {
      const uint32_t was = m->state;
      m->method = current;
      m->since = since;
      m->state = kUnnamed;
      index_method(replaced[i]);
      /* an unnamed one is in `unnamed` still */
      if (was != kUnnamed && !add_unnamed(replaced[i])) count_failure();
    }
  }
  last_check_ns = now;
}

/* Whether `method`, which the slot `id` held, may have run: it has counters, or calls are not
 * counted (-Xint). A method that has not, and that no compiled code inlined, is in no frame. Its
 * slot is read again first, as close as can be to reading the Method*: one gone since the last
 * check may be freed. */
static int may_have_run(jmethodID id, const void* method) {
  if (!interpreter_counts) return 1;
  return slot_value(id) == method && method_has_counters(&layout, method) != 0;
}

/* Writes the METHOD record of known method k (its slot read again first: a method gone since the
 * last check is not named); `klass`: its class, or NULL. Returns 1 when it is named, or never
 * will be. */
static int name_known(jvmtiEnv* jvmti, JNIEnv* jni, size_t k, jclass klass, struct buffer* out) {
  struct known_method* m = &known[k];
  int class_named;
  if (m->state != kUnnamed || m->method == NULL) return 1;
  if (slot_value(m->id) != m->method) return 0; /* the next check sees why */
  class_named = read_class_names(jvmti, jni, m, klass);
  if (class_named < 0) return 0; /* the next check sees why */
  if (class_named == 0) {
    count_failure();
    m->state = kNotNamed;
    return 1;
  }
  m->state = put_method(jvmti, out, m->id, m->method, m->class_index, m->since);
  if (out->size >= FLUSH_BYTES) flush(out);
  return m->state != kUnnamed;
}

/* A round of listing: the records it writes, and whether it is the last (the table closes). The
 * last keeps no method that did not run and that no compiled code inlined: none will be named,
 * and keeping thousands of them (most methods listed at a JVM's start never run) cost as much as
 * naming those that ran. */
struct listing {
  struct buffer* out;
  int last;
  int keep_unrun;       /* keep every method: all rounds but the last */
  const void** inlined; /* sorted: the Method*s inline scopes named, at the last round */
  size_t inlined_count;
};

static int compare_pointers(const void* a, const void* b) {
  const uintptr_t x = (uintptr_t)(*(const void* const*)a);
  const uintptr_t y = (uintptr_t)(*(const void* const*)b);
  return x < y ? -1 : x > y;
}

/* Whether the round keeps `method`, which has not run. */
static int keeps_unrun(const struct listing* listing, const void* method) {
  return listing->keep_unrun || (listing->inlined_count != 0 &&
                                 bsearch(&method, listing->inlined, listing->inlined_count,
                                         sizeof(*listing->inlined), compare_pointers) != NULL);
}

/* Names the known methods `ran` (indices into `known`) of class `klass`, which have run, a few at
 * a time: what naming each reads is asked of the CPU for all of them first
 * (prefetch_descriptions), so that their reads of memory overlap instead of waiting one after
 * another (about a sixth of what naming them cost). */
#define NAMED_TOGETHER 32
static void name_listed(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass, const uint32_t* ran,
                        size_t count, struct buffer* out) {
  size_t first, i;
  for (first = 0; first < count; first += NAMED_TOGETHER) {
    const size_t n = count - first < NAMED_TOGETHER ? count - first : NAMED_TOGETHER;
    const void* methods[NAMED_TOGETHER];
    for (i = 0; i < n; ++i) methods[i] = known[ran[first + i]].method;
    prefetch_descriptions(&layout, methods, n);
    for (i = 0; i < n; ++i) name_known(jvmti, jni, ran[first + i], klass, out);
  }
}

/* Lists the methods of a prepared class (one not yet prepared has none to list: its ClassPrepare
 * comes later), and names those that may have run at once, while what JVMTI read of them to list
 * them is still in the CPU's caches (that and the naming touch the same Method and ConstMethod,
 * mostly memory nothing else read since the class was loaded); the others wait in `unnamed`.
 * Its count of redefinitions is read first (a redefinition after it shows at the next check);
 * a class redefined already (when, nothing tells) has its methods known from that read on, not
 * from its preparation: a slot's Method* may have held an earlier version before. */
static void list_class(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass, uint64_t since,
                       const struct listing* listing) {
  const jint redefinitions = redefinitions_of(jni, klass);
  jint count = 0, i;
  jmethodID* methods = NULL;
  uint32_t class_index = 0;
  size_t ran_count = 0;
  int added = 0;
  if (redefinitions > 0) {
    const uint64_t read = now_ns();
    if (since < read) since = read;
  }
  if ((*jvmti)->GetClassMethods(jvmti, klass, &count, &methods) != JVMTI_ERROR_NONE) return;
  for (i = 0; i < count; ++i) {
    const void* method = slot_value(methods[i]);
    int ran;
    if ((uintptr_t)method < FIRST_POINTER) continue;
    ran = may_have_run(methods[i], method);
    if ((!ran && !keeps_unrun(listing, method)) || find_known(method) != 0) continue;
    if (!added) {
      if (!add_class(jni, listing->last ? NULL : klass, redefinitions, &class_index)) {
        count_failure();
        break;
      }
      added = 1;
    }
    if (!add_known(methods[i], method, class_index, since)) {
      count_failure();
    } else if (ran) {
      uint32_t* grown =
          room_for_one(listed_ran, &listed_ran_capacity, ran_count, sizeof(*listed_ran), 256);
      if (grown == NULL) continue; /* named with the unnamed that ran, after the listing */
      listed_ran = grown;
      listed_ran[ran_count++] = (uint32_t)(known_count - 1);
    }
  }
  name_listed(jvmti, jni, klass, listed_ran, ran_count, listing->out);
  deallocate(jvmti, methods);
}

/* Names the unnamed methods that may be met in a frame now; keeps the others for later. */
static void name_what_ran(jvmtiEnv* jvmti, JNIEnv* jni, struct buffer* out) {
  size_t i, kept = 0;
  for (i = 0; i < unnamed_count; ++i) {
    const uint32_t k = unnamed[i];
    const struct known_method* m = &known[k];
    if (m->state != kUnnamed || m->method == NULL) continue;
    if (!may_have_run(m->id, m->method) || !name_known(jvmti, jni, k, NULL, out))
      unnamed[kept++] = k;
  }
  unnamed_count = kept;
}

/* ---- The queue of prepared classes, and the naming thread. ---- */

struct queued {
  jclass klass; /* a global reference */
  uint64_t since;
};
/* Guarded by queue_monitor: the classes prepared, and the Method*s compiled code's inline scopes
 * name, since the naming thread last took them. */
static jrawMonitorID queue_monitor;
static struct queued* queue;
static size_t queue_size, queue_capacity;
static const void** inlined;
static size_t inlined_size, inlined_capacity;
/* The COMPILED records written since: they go to the file with the naming thread's next batch
 * (or once they fill one), not with a write() each, which was most of what a compiled method
 * cost the JVM. */
static struct buffer compiled_records;
static volatile int table_open;
static int thread_started;

static void enqueue(JNIEnv* jni, jclass klass, uint64_t since) {
  jclass global = (*jni)->NewGlobalRef(jni, klass);
  struct queued* grown;
  if (global == NULL) {
    count_failure();
    return;
  }
  grown = room_for_one(queue, &queue_capacity, queue_size, sizeof(*queue), 1024);
  if (grown == NULL) {
    (*jni)->DeleteGlobalRef(jni, global);
    count_failure();
    return;
  }
  queue = grown;
  queue[queue_size].klass = global;
  queue[queue_size].since = since;
  ++queue_size;
}

/* Takes the queues out from under the monitor. */
static struct queued* take_queue(jvmtiEnv* jvmti, size_t* size, const void*** methods,
                                 size_t* method_count, struct buffer* compiled) {
  struct queued* taken;
  (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
  taken = queue;
  *size = queue_size;
  queue = NULL;
  queue_size = queue_capacity = 0;
  *methods = inlined;
  *method_count = inlined_size;
  inlined = NULL;
  inlined_size = inlined_capacity = 0;
  *compiled = compiled_records;
  memset(&compiled_records, 0, sizeof(compiled_records));
  (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
  return taken;
}

/* The Method*s inline scopes named whose classes were not listed yet (they wait for their
 * initialization, or for the naming thread). Guarded by work_lock. */
static const void** inlined_later;
static size_t inlined_later_size, inlined_later_capacity;

/* Names the methods compiled code inlined: they run there without counting their calls, so that
 * the code's samples and the interpreter frames its deoptimization leaves hold methods that may
 * never have run on their own. Those whose classes are not listed yet wait for them; at `last`
 * they are dropped. */
static void name_inlined(jvmtiEnv* jvmti, JNIEnv* jni, const void** methods, size_t count, int last,
                         struct buffer* out) {
  size_t i;
  for (i = 0; i < count; ++i) {
    const uint32_t v = find_known(methods[i]);
    if (v != 0) {
      name_known(jvmti, jni, v - 1, NULL, out);
    } else if (!last) {
      const void** grown = room_for_one(inlined_later, &inlined_later_capacity, inlined_later_size,
                                        sizeof(*inlined_later), 256);
      if (grown == NULL) {
        count_failure();
        continue;
      }
      inlined_later = grown;
      inlined_later[inlined_later_size++] = methods[i];
    }
  }
}

/* Classes prepared but not initialized yet: none of their methods has run (JVMS 5.5: a class is
 * initialized before its static methods run or an instance exists), so they are listed once they
 * are. Most classes a JVM loads at start are never initialized; listing their methods would cost
 * as much as listing those of the others. Guarded by work_lock. */
static struct queued* waiting;
static size_t waiting_size, waiting_capacity;

static int keep_waiting(const struct queued* q) {
  struct queued* grown =
      room_for_one(waiting, &waiting_capacity, waiting_size, sizeof(*waiting), 1024);
  if (grown == NULL) return 0;
  waiting = grown;
  waiting[waiting_size++] = *q;
  return 1;
}

/* Lists `q`'s class if it was initialized (or failed to be) and keeps it waiting if it may still
 * be (its reference moves to `waiting`, and `q`'s is NULL); the caller lets the others go (an
 * array, or `last`: the table closes). */
static void list_if_initialized(jvmtiEnv* jvmti, JNIEnv* jni, struct queued* q,
                                const struct listing* listing) {
  const int last = listing->last;
  jint status = 0;
  if ((*jvmti)->GetClassStatus(jvmti, q->klass, &status) != JVMTI_ERROR_NONE) status = 0;
  if ((status & (JVMTI_CLASS_STATUS_INITIALIZED | JVMTI_CLASS_STATUS_ERROR)) != 0) {
    list_class(jvmti, jni, q->klass, q->since, listing);
  } else if (!last && (status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) == 0 &&
             keep_waiting(q)) {
    q->klass = NULL;
  }
}

/* Lets the classes of `queued` go (those not kept waiting). */
static void release_classes(JNIEnv* jni, struct queued* queued, size_t count) {
  size_t i;
  for (i = 0; i < count; ++i) {
    if (queued[i].klass != NULL) (*jni)->DeleteGlobalRef(jni, queued[i].klass);
  }
  free(queued);
}

/* The last round's set of inlined Method*s: `a` and `b`, sorted. Without memory for it, the
 * round keeps every method, as the others do. */
static void inline_set(struct listing* listing, const void** a, size_t a_count, const void** b,
                       size_t b_count) {
  const size_t count = a_count + b_count;
  if (count == 0) return;
  listing->inlined = malloc(count * sizeof(*listing->inlined));
  if (listing->inlined == NULL) {
    listing->keep_unrun = 1;
    return;
  }
  if (a_count != 0) memcpy(listing->inlined, a, a_count * sizeof(*a));
  if (b_count != 0) memcpy(listing->inlined + a_count, b, b_count * sizeof(*b));
  qsort(listing->inlined, count, sizeof(*listing->inlined), compare_pointers);
  listing->inlined_count = count;
}

/* Checks the slots, lists what is queued and what waited for its initialization (naming those
 * of its methods that ran), then names the methods inline scopes named and those listed before
 * that ran since (all after the check: a Method* freed and reused by a class queued meanwhile
 * must be ended before the new class's method can be named), and only then lets the classes
 * listed go (no class can be unloaded while its methods are named). Under
 * work_lock. `last`: the table closes, and what has not been initialized by then never ran.
 * `jni` NULL: nothing more is named (VM exit, JNI gone). */
static void work(jvmtiEnv* jvmti, JNIEnv* jni, int last) {
  struct buffer out = {NULL, 0, 0, 0}, compiled;
  size_t count = 0, method_count = 0, i;
  struct queued* taken;
  const void** methods;
  struct queued* earlier = waiting;
  const size_t earlier_size = waiting_size;
  const void** inlined_earlier = inlined_later;
  const size_t inlined_earlier_size = inlined_later_size;
  if (!table_open) return;
  check_slots(jni, &out);
  waiting = NULL;
  waiting_size = waiting_capacity = 0;
  inlined_later = NULL;
  inlined_later_size = inlined_later_capacity = 0;
  taken = take_queue(jvmti, &count, &methods, &method_count, &compiled);
  flush(&compiled);
  release_buffer(&compiled);
  if (jni != NULL) {
    struct listing listing = {&out, last, !last, NULL, 0};
    if (last) inline_set(&listing, inlined_earlier, inlined_earlier_size, methods, method_count);
    for (i = 0; i < earlier_size; ++i) list_if_initialized(jvmti, jni, &earlier[i], &listing);
    for (i = 0; i < count; ++i) list_if_initialized(jvmti, jni, &taken[i], &listing);
    free(listing.inlined);
    name_inlined(jvmti, jni, inlined_earlier, inlined_earlier_size, last, &out);
    name_inlined(jvmti, jni, methods, method_count, last, &out);
    name_what_ran(jvmti, jni, &out);
    release_classes(jni, earlier, earlier_size);
    release_classes(jni, taken, count);
  } else {
    free(earlier);
    free(taken);
  }
  free(inlined_earlier);
  free(methods);
  flush(&out);
  release_buffer(&out);
}

static void JNICALL naming_thread(jvmtiEnv* jvmti, JNIEnv* jni, void* arg) {
  (void)arg;
  for (;;) {
    (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
    (*jvmti)->RawMonitorWait(jvmti, queue_monitor, CHECK_INTERVAL_MS);
    (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
    pthread_mutex_lock(&work_lock);
    work(jvmti, jni, 0);
    pthread_mutex_unlock(&work_lock);
  }
}

/* A daemon Java thread running naming_thread (JVMTI RunAgentThread needs its Thread object).
 * `ran`: the Thread constructor it called. */
static int start_thread(jvmtiEnv* jvmti, JNIEnv* jni, jmethodID* ran) {
  jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
  jmethodID init = NULL;
  jstring name = NULL;
  jobject thread = NULL;
  if (thread_class != NULL)
    init = (*jni)->GetMethodID(jni, thread_class, "<init>", "(Ljava/lang/String;)V");
  if (init != NULL) name = (*jni)->NewStringUTF(jni, "jitscope JVM table");
  if (name != NULL) thread = (*jni)->NewObject(jni, thread_class, init, name);
  *ran = init;
  if (thread == NULL) {
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    return 0;
  }
  return (*jvmti)->RunAgentThread(jvmti, thread, naming_thread, NULL, JVMTI_THREAD_NORM_PRIORITY) ==
         JVMTI_ERROR_NONE;
}

/* java.lang.Class.classRedefinedCount, into redefinitions_field (NULL, and counted as a failure,
 * when this JVM has none: its classes' redefinitions are then told by their slots alone). */
static void find_redefinitions_field(JNIEnv* jni) {
  jclass class_class = (*jni)->FindClass(jni, "java/lang/Class");
  if (class_class != NULL) {
    redefinitions_field = (*jni)->GetFieldID(jni, class_class, "classRedefinedCount", "I");
    (*jni)->DeleteLocalRef(jni, class_class);
  }
  if (redefinitions_field == NULL) {
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    count_failure();
  }
}

void method_table_capabilities(jvmtiCapabilities* capabilities) {
  capabilities->can_get_line_numbers = 1;
  capabilities->can_get_source_file_name = 1;
}

int method_table_open(jvmtiEnv* jvmti, JNIEnv* jni, const char* dir, int since_start) {
  char path[4096];
  const char* directory = dir != NULL ? dir : getenv("JITSCOPE_OUTPUT_DIR");
  struct JitscopeJvmTableHeader header;
  jint count = 0, i;
  jclass* loaded = NULL;
  int fd, error = 0;
  uint64_t since;
  if (directory == NULL || *directory == '\0') directory = ".";
  if (snprintf(path, sizeof(path), "%s/jvm-%ld.jsm", directory, (long)getpid()) >=
      (int)sizeof(path)) {
    return ENAMETOOLONG;
  }
  if (queue_monitor == NULL &&
      (*jvmti)->CreateRawMonitor(jvmti, "jitscope JVM table", &queue_monitor) != JVMTI_ERROR_NONE) {
    return EIO;
  }
  /* What a callback that raced with the last close left. */
  (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
  release_buffer(&compiled_records);
  (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
  pthread_mutex_lock(&work_lock);
  if (!layout.known) read_method_layout(&layout);
  if (redefinitions_field == NULL) find_redefinitions_field(jni);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = errno;
    pthread_mutex_unlock(&work_lock);
    return error;
  }
  memset(&header, 0, sizeof(header));
  header.magic = JITSCOPE_JVM_TABLE_MAGIC;
  header.version = JITSCOPE_JVM_TABLE_VERSION;
  header.header_size = (uint32_t)sizeof(header);
  header.pid = (uint32_t)getpid();
  header.start_ns = now_ns();
  if (write(fd, &header, sizeof(header)) != (ssize_t)sizeof(header)) {
    error = errno != 0 ? errno : EIO;
    close(fd);
    pthread_mutex_unlock(&work_lock);
    return error;
  }
  pthread_mutex_lock(&file_lock);
  table_fd = fd;
  pthread_mutex_unlock(&file_lock);
  last_check_ns = header.start_ns;
  since = since_start ? 0 : header.start_ns;
  __atomic_store_n(&table_open, 1, __ATOMIC_RELEASE);
  if ((*jvmti)->GetLoadedClasses(jvmti, &count, &loaded) == JVMTI_ERROR_NONE) {
    (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
    for (i = 0; i < count; ++i) {
      enqueue(jni, loaded[i], since);
      (*jni)->DeleteLocalRef(jni, loaded[i]);
    }
    (*jvmti)->RawMonitorNotify(jvmti, queue_monitor);
    (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
    deallocate(jvmti, loaded);
  } else {
    count_failure();
  }
  if (!thread_started) {
    jmethodID ran = NULL;
    thread_started = start_thread(jvmti, jni, &ran);
    /* HotSpot's interpreter counts calls when a compiler may want them (not under -Xint; the code
     * it generated at start does so or not for good). The Thread constructor just ran through
     * JNI, on the interpreter or compiled: it has counters if the interpreter counts. If not,
     * every method must be named, as any may have run without leaving a trace. */
    interpreter_counts =
        thread_started && ran != NULL && method_has_counters(&layout, slot_value(ran)) == 1;
  }
  if (!thread_started) count_failure();
  pthread_mutex_unlock(&work_lock);
  return 0;
}

void method_table_class_prepared(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
  const uint64_t since = now_ns();
  if (!__atomic_load_n(&table_open, __ATOMIC_ACQUIRE) || queue_monitor == NULL) return;
  (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
  enqueue(jni, klass, since);
  (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
}

/* Queues `method` for naming, unless one of the last few queued since `first` (this code's) is it:
 * most pcs repeat the frames of the pc before. Under queue_monitor. */
static void queue_inlined(const void* method, size_t first) {
  const void** grown;
  size_t i;
  for (i = inlined_size; i > first && i + 8 > inlined_size; --i) {
    if (inlined[i - 1] == method) return;
  }
  grown = room_for_one(inlined, &inlined_capacity, inlined_size, sizeof(*inlined), 256);
  if (grown == NULL) {
    count_failure();
    return;
  }
  inlined = grown;
  inlined[inlined_size++] = method;
}

void method_table_compiled(jvmtiEnv* jvmti, const void* code, jint size, const void* compile_info) {
  const jvmtiCompiledMethodLoadRecordHeader* header = compile_info;
  const jvmtiCompiledMethodLoadInlineRecord* record = NULL;
  struct JitscopeJvmCompiled compiled;
  struct buffer out = {NULL, 0, 0, 0}, full = {NULL, 0, 0, 0};
  uint32_t frames = 0;
  size_t at, first_queued;
  jint p, f;
  if (!__atomic_load_n(&table_open, __ATOMIC_ACQUIRE) || queue_monitor == NULL) return;
  for (; header != NULL; header = header->next) {
    if (header->kind == JVMTI_CMLR_INLINE_INFO) {
      record = (const jvmtiCompiledMethodLoadInlineRecord*)header;
      break;
    }
  }
  if (record == NULL || record->numpcs <= 0 || record->pcinfo == NULL) return;
  for (p = 0; p < record->numpcs; ++p) {
    if (record->pcinfo[p].numstackframes > 0) frames += (uint32_t)record->pcinfo[p].numstackframes;
  }
  memset(&compiled, 0, sizeof(compiled));
  compiled.address = (uint64_t)(uintptr_t)code;
  compiled.size = (uint32_t)size;
  compiled.pc_count = (uint32_t)record->numpcs;
  compiled.frame_count = frames;
  at = start_record(&out, JITSCOPE_JVM_RECORD_COMPILED, now_ns());
  put(&out, &compiled, sizeof(compiled));
  frames = 0;
  for (p = 0; p < record->numpcs; ++p) {
    const PCStackInfo* info = &record->pcinfo[p];
    struct JitscopeJvmPc pc;
    pc.pc = (uint64_t)(uintptr_t)info->pc;
    pc.first_frame = frames;
    pc.frames = info->numstackframes > 0 ? (uint32_t)info->numstackframes : 0;
    frames += pc.frames;
    put(&out, &pc, sizeof(pc));
  }
  (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
  first_queued = inlined_size;
  for (p = 0; p < record->numpcs; ++p) {
    const PCStackInfo* info = &record->pcinfo[p];
    for (f = 0; f < info->numstackframes; ++f) {
      struct JitscopeJvmFrame frame;
      const void* method = info->methods[f] != NULL ? slot_value(info->methods[f]) : NULL;
      frame.method = (uint64_t)(uintptr_t)method;
      frame.bci = info->bcis[f];
      frame.reserved = 0;
      put(&out, &frame, sizeof(frame));
      if ((uintptr_t)method >= FIRST_POINTER) queue_inlined(method, first_queued);
    }
  }
  finish_record(&out, at);
  if (out.failed) {
    count_failure();
  } else {
    put(&compiled_records, out.data, out.size);
  }
  if (compiled_records.size >= FLUSH_BYTES) {
    full = compiled_records;
    memset(&compiled_records, 0, sizeof(compiled_records));
  }
  (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
  flush(&full);
  release_buffer(&full);
  release_buffer(&out);
}

void method_table_close(jvmtiEnv* jvmti, JNIEnv* jni) {
  pthread_mutex_lock(&work_lock);
  if (table_open) {
    work(jvmti, jni, 1);
    __atomic_store_n(&table_open, 0, __ATOMIC_RELEASE);
    pthread_mutex_lock(&file_lock);
    if (table_fd >= 0) close(table_fd);
    table_fd = -1;
    pthread_mutex_unlock(&file_lock);
    forget_everything(jni);
  }
  pthread_mutex_unlock(&work_lock);
}
