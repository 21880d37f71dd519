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

/* Finds `type`'s size in gHotSpotVMTypes; 0 when it is not there. */
static int type_size(const char* type, size_t* size) {
  const char* const* table = (const char* const*)jvm_symbol("gHotSpotVMTypes");
  const uint64_t stride = jvm_u64("gHotSpotVMTypeEntryArrayStride");
  const uint64_t type_name = jvm_u64("gHotSpotVMTypeEntryTypeNameOffset");
  const uint64_t size_at = jvm_u64("gHotSpotVMTypeEntrySizeOffset");
  const char* entry;
  if (table == NULL || *table == NULL || stride == 0) return 0;
  for (entry = *table; string_at(entry, type_name) != NULL; entry += stride) {
    uint64_t value;
    if (!same(string_at(entry, type_name), type)) continue;
    memcpy(&value, entry + size_at, sizeof(value));
    *size = (size_t)value;
    return 1;
  }
  return 0;
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
