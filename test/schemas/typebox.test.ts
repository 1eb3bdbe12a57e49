// The TypeBox wrapper's JSON Schema output (what the OpenAPI document and assets/config.schema.json hold)
// and its date-time format.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compile, jsonSchema, Type } from '../../src/schemas/typebox.js';

describe('jsonSchema', () => {
  it('drops our sentence keywords, but never a property that bears their name', () => {
    const schema = Type.Object(
      { detail: Type.String({ detail: 'must be text', patternDetail: 'no', pattern: '^a' }) },
      { detail: 'an object' },
    );
    assert.deepEqual(jsonSchema(schema), {
      type: 'object',
      required: ['detail'],
      properties: { detail: { type: 'string', pattern: '^a' } },
    });
  });

  it('writes tuples as prefixItems and shared schemas as references', () => {
    const Name = Type.String({ minLength: 1 });
    const Pair = Type.Object({
      both: Type.Tuple([Name, Type.Integer()]),
      maybe: Type.Optional(Type.Object({ n: Name })),
    });
    const Inner = Pair.properties.maybe;
    const out = jsonSchema(Pair, new Map([[Name, 'Name']])) as { properties: Record<string, Record<string, unknown>> };
    assert.deepEqual(out.properties.both, {
      type: 'array',
      prefixItems: [{ $ref: '#/components/schemas/Name' }, { type: 'integer' }],
      items: false,
      minItems: 2,
      maxItems: 2,
    });
    // An optional copy of a shared object schema (same properties) is a reference too.
    const refs = jsonSchema(Type.Object({ a: Type.Optional(Inner) }), new Map([[Inner, 'Inner']])) as {
      properties: Record<string, unknown>;
    };
    assert.deepEqual(refs.properties.a, { $ref: '#/components/schemas/Inner' });
  });
});

describe('compile', () => {
  it('checks RFC 3339 date-times', () => {
    const time = compile(Type.String({ format: 'date-time' }));
    assert.equal(time.check('2026-11-24T23:13:04.000Z'), true);
    assert.equal(time.check('2026-11-24T23:13:04+01:00'), true);
    assert.equal(time.check('2026-11-24 23:13'), false);
    assert.equal(time.check('2026-13-45T99:99:99Z'), false);
    assert.deepEqual(time.explain('yesterday').length, 1);
  });
});
