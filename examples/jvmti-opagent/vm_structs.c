/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "vm_structs.h"

#include <dlfcn.h>
#include <string.h>

/* An exported variable of libjvm.so, or NULL. */
static const void* jvm_symbol(const char* name) { return dlsym(RTLD_DEFAULT, name); }

/* The value of an exported uint64_t variable (an offset or a stride), or 0 when it is missing. */
static uint64_t jvm_u64(const char* name) {
  const uint64_t* value = (const uint64_t*)jvm_symbol(name);
  return value != NULL ? *value : 0;
}

/* The string at `offset` in `entry`, a char* field. */
static const char* string_at(const char* entry, uint64_t offset) {
  const char* value;
  memcpy(&value, entry + offset, sizeof(value));
  return value;
}

static int same(const char* a, const char* b) { return a != NULL && strcmp(a, b) == 0; }

/* Finds `type`'s non-static field `field` in gHotSpotVMStructs; 0 when it is not there. */
static int field_offset(const char* type, const char* field, size_t* offset) {
  const char* const* table = (const char* const*)jvm_symbol("gHotSpotVMStructs");
  const uint64_t stride = jvm_u64("gHotSpotVMStructEntryArrayStride");
  const uint64_t type_name = jvm_u64("gHotSpotVMStructEntryTypeNameOffset");
  const uint64_t field_name = jvm_u64("gHotSpotVMStructEntryFieldNameOffset");
  const uint64_t is_static = jvm_u64("gHotSpotVMStructEntryIsStaticOffset");
  const uint64_t offset_at = jvm_u64("gHotSpotVMStructEntryOffsetOffset");
  const char* entry;
  if (table == NULL || *table == NULL || stride == 0) return 0;
  /* The table ends with an entry whose type name is NULL. */
  for (entry = *table; string_at(entry, type_name) != NULL; entry += stride) {
    int32_t static_field;
    uint64_t value;
    memcpy(&static_field, entry + is_static, sizeof(static_field));
    if (static_field || !same(string_at(entry, type_name), type) ||
        !same(string_at(entry, field_name), field)) {
      continue;
    }
    memcpy(&value, entry + offset_at, sizeof(value));
    *offset = (size_t)value;
    return 1;
  }
  return 0;
}

/* The entry named `name` of the table libjvm exports as `table_symbol`; the variables
 * `stride_symbol` and `name_at_symbol` say how far apart its entries are and where each keeps
 * its name. NULL when it is not there. The table ends with an entry whose name is NULL. */
static const char* entry_named(const char* table_symbol, const char* stride_symbol,
                               const char* name_at_symbol, const char* name) {
  const char* const* table = (const char* const*)jvm_symbol(table_symbol);
  const uint64_t stride = jvm_u64(stride_symbol);
  const uint64_t name_at = jvm_u64(name_at_symbol);
  const char* entry;
  if (table == NULL || *table == NULL || stride == 0) return NULL;
  for (entry = *table; string_at(entry, name_at) != NULL; entry += stride) {
    if (same(string_at(entry, name_at), name)) return entry;
  }
  return NULL;
}

/* Finds the integer constant `name` in gHotSpotVMIntConstants; 0 when it is not there. */
static int int_constant(const char* name, int32_t* value) {
  const char* entry = entry_named("gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
                                  "gHotSpotVMIntConstantEntryNameOffset", name);
  if (entry == NULL) return 0;
  memcpy(value, entry + jvm_u64("gHotSpotVMIntConstantEntryValueOffset"), sizeof(*value));
  return 1;
}

/* Finds `type`'s size in gHotSpotVMTypes; 0 when it is not there. */
static int type_size(const char* type, size_t* size) {
  const char* entry = entry_named("gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
                                  "gHotSpotVMTypeEntryTypeNameOffset", type);
  uint64_t value;
  if (entry == NULL) return 0;
  memcpy(&value, entry + jvm_u64("gHotSpotVMTypeEntrySizeOffset"), sizeof(value));
  *size = (size_t)value;
  return 1;
}

/* What describe_method and describe_class read. */
static void read_name_layout(struct method_layout* layout) {
  int32_t has_line_table = 0;
  layout->names_known =
      layout->known && field_offset("Method", "_access_flags", &layout->access_flags_offset) &&
      field_offset("ConstMethod", "_constants", &layout->constants_offset) &&
      field_offset("ConstMethod", "_name_index", &layout->name_index_offset) &&
      field_offset("ConstMethod", "_signature_index", &layout->signature_index_offset) &&
      field_offset("ConstMethod", "_flags", &layout->const_method_flags_offset) &&
      int_constant("ConstMethod::_has_linenumber_table", &has_line_table) && has_line_table > 0 &&
      has_line_table <= 0xffff &&
      field_offset("ConstantPool", "_length", &layout->pool_length_offset) &&
      type_size("ConstantPool", &layout->constant_pool_size) && layout->constant_pool_size != 0 &&
      field_offset("Symbol", "_length", &layout->symbol_length_offset) &&
      field_offset("Symbol", "_body", &layout->symbol_body_offset);
  layout->has_line_table = (uint32_t)has_line_table;
  layout->classes_known =
      layout->names_known &&
      field_offset("ConstantPool", "_pool_holder", &layout->pool_holder_offset) &&
      field_offset("ConstantPool", "_source_file_name_index", &layout->source_file_offset) &&
      field_offset("Klass", "_name", &layout->klass_name_offset) &&
      field_offset("InstanceKlass", "_constants", &layout->klass_constants_offset);
}

void read_method_layout(struct method_layout* layout) {
  memset(layout, 0, sizeof(*layout));
  layout->known = field_offset("Method", "_constMethod", &layout->const_method_offset) &&
                  field_offset("ConstMethod", "_code_size", &layout->code_size_offset) &&
                  type_size("ConstMethod", &layout->const_method_size) &&
                  layout->const_method_size != 0;
  layout->counters_known =
      field_offset("Method", "_method_counters", &layout->method_counters_offset) &&
      field_offset("Method", "_method_data", &layout->method_data_offset);
  read_name_layout(layout);
}

static const void* pointer_at(const void* base, size_t offset) {
  const void* value;
  memcpy(&value, (const char*)base + offset, sizeof(value));
  return value;
}

void bytecodes_of(const struct method_layout* layout, const void* method, uint64_t* base,
                  uint32_t* size) {
  const char* const_method;
  uint16_t code_size;
  *base = 0;
  *size = 0;
  if (!layout->known || method == NULL) return;
  const_method = pointer_at(method, layout->const_method_offset);
  if (const_method == NULL) return;
  memcpy(&code_size, const_method + layout->code_size_offset, sizeof(code_size));
  *base = (uint64_t)(uintptr_t)(const_method + layout->const_method_size);
  *size = code_size;
}

int method_has_counters(const struct method_layout* layout, const void* method) {
  if (!layout->counters_known || method == NULL) return -1;
  return pointer_at(method, layout->method_counters_offset) != NULL ||
         pointer_at(method, layout->method_data_offset) != NULL;
}

/* A pointer read from the JVM's memory that can be one to its metadata. */
static int plausible(const void* pointer) {
  return (uintptr_t)pointer >= 4096 && (uintptr_t)pointer % sizeof(void*) == 0;
}

/* The Symbol `symbol` (a Symbol*): its bytes and length; 0 when it is no pointer. */
static int symbol_bytes(const struct method_layout* layout, const char* symbol, const char** bytes,
                        uint16_t* size) {
  if (!plausible(symbol)) return 0;
  memcpy(size, symbol + layout->symbol_length_offset, sizeof(*size));
  *bytes = symbol + layout->symbol_body_offset;
  return 1;
}

/* The Symbol at `index` of the constant pool `pool`: its bytes and length; 0 when the index is
 * outside the pool or its entry is no pointer. */
static int symbol_at(const struct method_layout* layout, const char* pool, uint16_t index,
                     const char** bytes, uint16_t* size) {
  int32_t length;
  const char* symbol;
  memcpy(&length, pool + layout->pool_length_offset, sizeof(length));
  if (index == 0 || index >= length) return 0;
  symbol = pointer_at(pool, layout->constant_pool_size + (size_t)index * sizeof(void*));
  return symbol_bytes(layout, symbol, bytes, size);
}

/* The ConstMethod of `method` and its constant pool; 0 when either is no pointer. */
static int constants_of(const struct method_layout* layout, const void* method,
                        const char** const_method, const char** pool) {
  if (!plausible(method)) return 0;
  *const_method = pointer_at(method, layout->const_method_offset);
  if (!plausible(*const_method)) return 0;
  *pool = pointer_at(*const_method, layout->constants_offset);
  return plausible(*pool);
}

int describe_method(const struct method_layout* layout, const void* method,
                    struct method_description* description) {
  const char *const_method, *pool;
  uint16_t name_index, signature_index, code_size, flags;
  memset(description, 0, sizeof(*description));
  if (!layout->names_known || !constants_of(layout, method, &const_method, &pool)) return 0;
  memcpy(&description->access_flags, (const char*)method + layout->access_flags_offset,
         sizeof(description->access_flags));
  memcpy(&name_index, const_method + layout->name_index_offset, sizeof(name_index));
  memcpy(&signature_index, const_method + layout->signature_index_offset, sizeof(signature_index));
  memcpy(&code_size, const_method + layout->code_size_offset, sizeof(code_size));
  memcpy(&flags, const_method + layout->const_method_flags_offset, sizeof(flags));
  if (!symbol_at(layout, pool, name_index, &description->name, &description->name_size) ||
      !symbol_at(layout, pool, signature_index, &description->signature,
                 &description->signature_size)) {
    return 0;
  }
  description->code_size = code_size;
  /* ConstMethod::compressed_linenumber_table(): right after the bytecodes. */
  if ((flags & layout->has_line_table) != 0) {
    description->line_table =
        (const unsigned char*)const_method + layout->const_method_size + code_size;
  }
  return 1;
}

/* The address of the pool entry `index` of `pool`, or NULL when the index is outside it. */
static const char* pool_entry(const struct method_layout* layout, const char* pool,
                              uint16_t index) {
  int32_t length;
  memcpy(&length, pool + layout->pool_length_offset, sizeof(length));
  if (index == 0 || index >= length) return NULL;
  return pool + layout->constant_pool_size + (size_t)index * sizeof(void*);
}

void prefetch_descriptions(const struct method_layout* layout, const void* const* methods,
                           size_t count) {
  size_t i;
  if (!layout->names_known) return;
  for (i = 0; i < count; ++i) {
    const char* const_method;
    if (!plausible(methods[i])) continue;
    const_method = pointer_at(methods[i], layout->const_method_offset);
    __builtin_prefetch(const_method + layout->name_index_offset);
    __builtin_prefetch(const_method + layout->constants_offset);
  }
  for (i = 0; i < count; ++i) {
    const char *const_method, *pool;
    uint16_t name_index, signature_index;
    if (!constants_of(layout, methods[i], &const_method, &pool)) continue;
    memcpy(&name_index, const_method + layout->name_index_offset, sizeof(name_index));
    memcpy(&signature_index, const_method + layout->signature_index_offset,
           sizeof(signature_index));
    __builtin_prefetch(pool + layout->pool_length_offset);
    __builtin_prefetch(pool + layout->constant_pool_size + (size_t)name_index * sizeof(void*));
    __builtin_prefetch(pool + layout->constant_pool_size + (size_t)signature_index * sizeof(void*));
  }
  for (i = 0; i < count; ++i) {
    const char *const_method, *pool, *entry;
    uint16_t index, code_size;
    if (!constants_of(layout, methods[i], &const_method, &pool)) continue;
    memcpy(&index, const_method + layout->name_index_offset, sizeof(index));
    if ((entry = pool_entry(layout, pool, index)) != NULL)
      __builtin_prefetch((const char*)pointer_at(entry, 0) + layout->symbol_length_offset);
    memcpy(&index, const_method + layout->signature_index_offset, sizeof(index));
    if ((entry = pool_entry(layout, pool, index)) != NULL)
      __builtin_prefetch((const char*)pointer_at(entry, 0) + layout->symbol_length_offset);
    memcpy(&code_size, const_method + layout->code_size_offset, sizeof(code_size));
    __builtin_prefetch(const_method + layout->const_method_size + code_size);
  }
}

int describe_class(const struct method_layout* layout, const void* method, const char** name,
                   uint16_t* name_size, const char** file, uint16_t* file_size) {
  const char *const_method, *pool, *klass, *class_pool;
  uint16_t file_index;
  *file = NULL;
  *file_size = 0;
  if (!layout->classes_known || !constants_of(layout, method, &const_method, &pool)) return 0;
  klass = pointer_at(pool, layout->pool_holder_offset);
  if (!plausible(klass) ||
      !symbol_bytes(layout, pointer_at(klass, layout->klass_name_offset), name, name_size)) {
    return 0;
  }
  /* GetSourceFileName asks the class's constant pool, which is the method's unless the class was
   * redefined since. */
  class_pool = pointer_at(klass, layout->klass_constants_offset);
  if (!plausible(class_pool)) return 0;
  memcpy(&file_index, class_pool + layout->source_file_offset, sizeof(file_index));
  return file_index == 0 || symbol_at(layout, class_pool, file_index, file, file_size);
}

/* CompressedReadStream::read_int: UNSIGNED5, as Pack200 codes it (lg_H 6: bytes below 192 end a
 * number, at most 5 bytes), then decode_sign's zigzag. */
static int32_t read_signed(const unsigned char** p) {
  uint32_t sum = *(*p)++;
  int shift = 6, i;
  if (sum >= 192) {
    for (i = 1; i <= 4; ++i, shift += 6) {
      const uint32_t b = *(*p)++;
      sum += b << shift;
      if (b < 192) break;
    }
  }
  return (int32_t)(sum >> 1) ^ -(int32_t)(sum & 1);
}

long decode_line_table(const unsigned char* table, uint32_t code_size, struct method_line* lines,
                       size_t capacity) {
  const unsigned char* p = table;
  int64_t bci = 0, line = 0;
  long count = 0;
  for (;;) {
    const unsigned char next = *p++;
    if (next == 0) return count;
    if (next == 0xff) {
      bci += read_signed(&p);
      line += read_signed(&p);
    } else {
      bci += next >> 3;
      line += next & 7;
    }
    if (bci < 0 || bci >= code_size || line < 0 || line > 0xffff || count == 0xffff) return -1;
    if ((size_t)count < capacity) {
      lines[count].start_bci = (uint32_t)bci;
      lines[count].line = (uint32_t)line;
    }
    ++count;
  }
}
