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
static struct bytecode_layout layout;

struct class_names {
  char* name; /* "pkg.Outer$Inner" */
  char* file; /* "pkg/Outer.java", or NULL */
};
static struct class_names* classes;
static size_t class_count, class_capacity;

struct known_method {
  jmethodID id;
  const void* method; /* what its slot held when last read; NULL once it is gone */
  uint32_t class_index;
};
static struct known_method* known;
static size_t known_count, known_capacity;
/* The Method*s named and not ended, for finding one fast: open addressing over `known` indexes
 * + 1 (0: empty); erased entries are kTombstone. */
static uint32_t* by_method;
static size_t by_method_capacity, by_method_used;
#define TOMBSTONE UINT32_MAX
static uint64_t last_check_ns;

static size_t slot_of(const void* method) {
  uint64_t h = (uint64_t)(uintptr_t)method * 0x9e3779b97f4a7c15u;
  return (size_t)(h >> 20) & (by_method_capacity - 1);
}

static int is_named(const void* method) {
  size_t i;
  if (by_method_capacity == 0) return 0;
  for (i = slot_of(method);; i = (i + 1) & (by_method_capacity - 1)) {
    const uint32_t v = by_method[i];
    if (v == 0) return 0;
    if (v != TOMBSTONE && known[v - 1].method == method) return 1;
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

static void forget_everything(void) {
  size_t i;
  for (i = 0; i < class_count; ++i) {
    free(classes[i].name);
    free(classes[i].file);
  }
  free(classes);
  classes = NULL;
  class_count = class_capacity = 0;
  free(known);
  known = NULL;
  known_count = known_capacity = 0;
  free(by_method);
  by_method = NULL;
  by_method_capacity = by_method_used = 0;
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

/* Appends a METHOD record for `id`, whose slot holds `method`, of class `class_index`. Returns 0
 * when the method is not one to name (abstract: it never runs) or JVMTI cannot describe it. */
static int put_method(jvmtiEnv* jvmti, struct buffer* out, jmethodID id, const void* method,
                      uint32_t class_index, uint64_t since) {
  char *name = NULL, *signature = NULL;
  jint modifiers = 0, line_count = 0;
  jvmtiLineNumberEntry* lines = NULL;
  struct JitscopeJvmMethod m;
  const struct class_names* owner = &classes[class_index];
  size_t at;
  jint i;
  if ((*jvmti)->GetMethodModifiers(jvmti, id, &modifiers) != JVMTI_ERROR_NONE ||
      (modifiers & JVM_ACC_ABSTRACT) != 0) {
    return 0;
  }
  if ((*jvmti)->GetMethodName(jvmti, id, &name, &signature, NULL) != JVMTI_ERROR_NONE) {
    count_failure();
    return 0;
  }
  if ((modifiers & JVM_ACC_NATIVE) != 0 ||
      (*jvmti)->GetLineNumberTable(jvmti, id, &line_count, &lines) != JVMTI_ERROR_NONE) {
    line_count = 0;
    lines = NULL;
  }
  memset(&m, 0, sizeof(m));
  m.method = (uint64_t)(uintptr_t)method;
  bytecodes_of(&layout, method, &m.code_base, &m.code_size);
  m.flags = (modifiers & JVM_ACC_NATIVE) != 0 ? JITSCOPE_JVM_METHOD_NATIVE : 0;
  m.class_size = (uint32_t)strlen(owner->name);
  m.name_size = (uint32_t)strlen(name);
  m.signature_size = (uint32_t)strlen(signature);
  m.file_size = owner->file != NULL ? (uint32_t)strlen(owner->file) : 0;
  m.line_count = (uint32_t)line_count;
  at = start_record(out, JITSCOPE_JVM_RECORD_METHOD, since);
  put(out, &m, sizeof(m));
  for (i = 0; i < line_count; ++i) {
    struct JitscopeJvmLine line;
    line.start_bci = (uint32_t)lines[i].start_location;
    line.line = (uint32_t)lines[i].line_number;
    put(out, &line, sizeof(line));
  }
  put(out, owner->name, m.class_size);
  put(out, name, m.name_size);
  put(out, signature, m.signature_size);
  if (owner->file != NULL) put(out, owner->file, m.file_size);
  finish_record(out, at);
  deallocate(jvmti, lines);
  deallocate(jvmti, name);
  deallocate(jvmti, signature);
  return 1;
}

static int add_class(jvmtiEnv* jvmti, jclass klass, uint32_t* index) {
  char *signature = NULL, *file = NULL;
  struct class_names names;
  if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) != JVMTI_ERROR_NONE) return 0;
  names.name = class_name_of(signature);
  names.file = NULL;
  if ((*jvmti)->GetSourceFileName(jvmti, klass, &file) == JVMTI_ERROR_NONE) {
    names.file = source_path_of(signature, file);
  }
  deallocate(jvmti, file);
  deallocate(jvmti, signature);
  if (names.name == NULL) {
    free(names.file);
    return 0;
  }
  if (class_count == class_capacity) {
    const size_t capacity = class_capacity != 0 ? class_capacity * 2 : 1024;
    struct class_names* grown = realloc(classes, capacity * sizeof(*classes));
    if (grown == NULL) {
      free(names.name);
      free(names.file);
      return 0;
    }
    classes = grown;
    class_capacity = capacity;
  }
  classes[class_count] = names;
  *index = (uint32_t)class_count++;
  return 1;
}

static int add_known(jmethodID id, const void* method, uint32_t class_index) {
  if (known_count == known_capacity) {
    const size_t capacity = known_capacity != 0 ? known_capacity * 2 : 8192;
    struct known_method* grown = realloc(known, capacity * sizeof(*known));
    if (grown == NULL) return 0;
    known = grown;
    known_capacity = capacity;
  }
  known[known_count].id = id;
  known[known_count].method = method;
  known[known_count].class_index = class_index;
  index_method(known_count++);
  return 1;
}

static const void* slot_value(jmethodID id) {
  return *(const void* const volatile*)(const void*)id;
}

/* Names the methods of a prepared class (one not yet prepared has none to list: its ClassPrepare
 * comes later). */
static void name_class(jvmtiEnv* jvmti, jclass klass, uint64_t since, struct buffer* out) {
  jint count = 0, i;
  jmethodID* methods = NULL;
  uint32_t class_index = 0;
  int added = 0;
  if ((*jvmti)->GetClassMethods(jvmti, klass, &count, &methods) != JVMTI_ERROR_NONE) return;
  for (i = 0; i < count; ++i) {
    const void* method = slot_value(methods[i]);
    if ((uintptr_t)method < FIRST_POINTER || is_named(method)) continue;
    if (!added) {
      if (!add_class(jvmti, klass, &class_index)) {
        count_failure();
        break;
      }
      added = 1;
    }
    if (put_method(jvmti, out, methods[i], method, class_index, since) &&
        !add_known(methods[i], method, class_index)) {
      count_failure();
    }
  }
  deallocate(jvmti, methods);
  if (out->size >= FLUSH_BYTES) flush(out);
}

/* Reads every known method's slot again: a method whose slot changed is ended at the last check,
 * and named again if the slot holds another Method* (redefined). */
static void check_slots(jvmtiEnv* jvmti, struct buffer* out) {
  const uint64_t now = now_ns();
  size_t k;
  for (k = 0; k < known_count; ++k) {
    struct known_method* m = &known[k];
    const void* current;
    size_t at;
    struct JitscopeJvmEnd end;
    if (m->method == NULL) continue;
    current = slot_value(m->id);
    if (current == m->method) continue;
    end.method = (uint64_t)(uintptr_t)m->method;
    end.valid_until_ns = last_check_ns;
    at = start_record(out, JITSCOPE_JVM_RECORD_END, now);
    put(out, &end, sizeof(end));
    finish_record(out, at);
    unindex_method(k);
    m->method = NULL;
    if ((uintptr_t)current >= FIRST_POINTER && !is_named(current) &&
        put_method(jvmti, out, m->id, current, m->class_index, now)) {
      m->method = current;
      index_method(k);
    }
  }
  last_check_ns = now;
}

/* ---- The queue of prepared classes, and the naming thread. ---- */

struct queued {
  jclass klass; /* a global reference */
  uint64_t since;
};
static jrawMonitorID queue_monitor;
static struct queued* queue;
static size_t queue_size, queue_capacity;
static volatile int table_open;
static int thread_started;

static void enqueue(JNIEnv* jni, jclass klass, uint64_t since) {
  jclass global = (*jni)->NewGlobalRef(jni, klass);
  if (global == NULL) {
    count_failure();
    return;
  }
  if (queue_size == queue_capacity) {
    const size_t capacity = queue_capacity != 0 ? queue_capacity * 2 : 1024;
    struct queued* grown = realloc(queue, capacity * sizeof(*queue));
    if (grown == NULL) {
      (*jni)->DeleteGlobalRef(jni, global);
      count_failure();
      return;
    }
    queue = grown;
    queue_capacity = capacity;
  }
  queue[queue_size].klass = global;
  queue[queue_size].since = since;
  ++queue_size;
}

/* Takes the queue out from under the monitor. */
static struct queued* take_queue(jvmtiEnv* jvmti, size_t* size) {
  struct queued* taken;
  (*jvmti)->RawMonitorEnter(jvmti, queue_monitor);
  taken = queue;
  *size = queue_size;
  queue = NULL;
  queue_size = queue_capacity = 0;
  (*jvmti)->RawMonitorExit(jvmti, queue_monitor);
  return taken;
}

/* Classes prepared but not initialized yet: none of their methods has run (JVMS 5.5: a class is
 * initialized before its static methods run or an instance exists), so they are named once they
 * are. Most classes a JVM loads at start are never initialized; naming them would be most of the
 * table's cost. Guarded by work_lock. */
static struct queued* waiting;
static size_t waiting_size, waiting_capacity;

static int keep_waiting(const struct queued* q) {
  if (waiting_size == waiting_capacity) {
    const size_t capacity = waiting_capacity != 0 ? waiting_capacity * 2 : 1024;
    struct queued* grown = realloc(waiting, capacity * sizeof(*waiting));
    if (grown == NULL) return 0;
    waiting = grown;
    waiting_capacity = capacity;
  }
  waiting[waiting_size++] = *q;
  return 1;
}

/* Names `q`'s class if it was initialized (or failed to be), keeps it waiting if it may still
 * be, and lets it go otherwise (an array, or `last`: the table closes). Returns 1 when done. */
static int name_if_initialized(jvmtiEnv* jvmti, JNIEnv* jni, const struct queued* q, int last,
                               struct buffer* out) {
  jint status = 0;
  if ((*jvmti)->GetClassStatus(jvmti, q->klass, &status) != JVMTI_ERROR_NONE) status = 0;
  if ((status & (JVMTI_CLASS_STATUS_INITIALIZED | JVMTI_CLASS_STATUS_ERROR)) != 0) {
    name_class(jvmti, q->klass, q->since, out);
  } else if (!last && (status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) == 0 &&
             keep_waiting(q)) {
    return 0;
  }
  (*jni)->DeleteGlobalRef(jni, q->klass);
  return 1;
}

/* Checks the slots, then names what is queued and what waited for its initialization (in that
 * order: a Method* freed and reused by a class queued meanwhile must be ended before the new
 * class's method can be named). Under work_lock. `last`: the table closes, and what has not been
 * initialized by then never ran. `jni` NULL: the classes are dropped (VM exit, JNI gone). */
static void work(jvmtiEnv* jvmti, JNIEnv* jni, int last) {
  struct buffer out = {NULL, 0, 0, 0};
  size_t count = 0, i;
  struct queued* taken;
  struct queued* earlier = waiting;
  const size_t earlier_size = waiting_size;
  if (!table_open) return;
  check_slots(jvmti, &out);
  waiting = NULL;
  waiting_size = waiting_capacity = 0;
  taken = take_queue(jvmti, &count);
  if (jni != NULL) {
    for (i = 0; i < earlier_size; ++i) name_if_initialized(jvmti, jni, &earlier[i], last, &out);
    for (i = 0; i < count; ++i) name_if_initialized(jvmti, jni, &taken[i], last, &out);
  }
  free(earlier);
  free(taken);
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

/* A daemon Java thread running naming_thread (JVMTI RunAgentThread needs its Thread object). */
static int start_thread(jvmtiEnv* jvmti, JNIEnv* jni) {
  jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
  jmethodID init = NULL;
  jstring name = NULL;
  jobject thread = NULL;
  if (thread_class != NULL)
    init = (*jni)->GetMethodID(jni, thread_class, "<init>", "(Ljava/lang/String;)V");
  if (init != NULL) name = (*jni)->NewStringUTF(jni, "jitscope JVM table");
  if (name != NULL) thread = (*jni)->NewObject(jni, thread_class, init, name);
  if (thread == NULL) {
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    return 0;
  }
  return (*jvmti)->RunAgentThread(jvmti, thread, naming_thread, NULL, JVMTI_THREAD_NORM_PRIORITY) ==
         JVMTI_ERROR_NONE;
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
  pthread_mutex_lock(&work_lock);
  if (!layout.known) read_bytecode_layout(&layout);
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
  if (!thread_started) thread_started = start_thread(jvmti, jni);
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

void method_table_compiled(jvmtiEnv* jvmti, const void* code, jint size, const void* compile_info) {
  const jvmtiCompiledMethodLoadRecordHeader* header = compile_info;
  const jvmtiCompiledMethodLoadInlineRecord* record = NULL;
  struct JitscopeJvmCompiled compiled;
  struct buffer out = {NULL, 0, 0, 0};
  uint32_t frames = 0;
  size_t at;
  jint p, f;
  (void)jvmti;
  if (!__atomic_load_n(&table_open, __ATOMIC_ACQUIRE)) return;
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
  for (p = 0; p < record->numpcs; ++p) {
    const PCStackInfo* info = &record->pcinfo[p];
    for (f = 0; f < info->numstackframes; ++f) {
      struct JitscopeJvmFrame frame;
      frame.method =
          info->methods[f] != NULL ? (uint64_t)(uintptr_t)slot_value(info->methods[f]) : 0;
      frame.bci = info->bcis[f];
      frame.reserved = 0;
      put(&out, &frame, sizeof(frame));
    }
  }
  finish_record(&out, at);
  flush(&out);
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
    forget_everything();
  }
  pthread_mutex_unlock(&work_lock);
}
