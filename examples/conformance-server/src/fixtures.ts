import { JSON_SCHEMA_2020_12, JsonSchemaObject } from '@hermes-mcp/core';

/** A 1×1 PNG, base64. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file, base64. */
export const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/**
 * The input schema of `json_schema_2020_12_tool` (SEP-1613, SEP-2106): the suite checks that it
 * reaches the client verbatim — `$schema`, `$defs` (with `$anchor`), composition, conditionals and
 * `additionalProperties: false` — which is what `@Tool({ inputSchema })` promises.
 */
export const CONTACT_SCHEMA: JsonSchemaObject = {
  $schema: JSON_SCHEMA_2020_12,
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};
