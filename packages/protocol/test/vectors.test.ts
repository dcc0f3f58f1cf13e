// The SPEC rules against docs/vectors/spec-rules.json: each vector's arguments through the real
// function must give the vector's result, and the file must be what `npm run vectors` writes today.
import { describe, expect, it } from 'vitest';
import file from '../../../docs/vectors/spec-rules.json';
import { runRule, specRuleVectors, type SpecRuleVectors } from './vectors/spec-rules';

const vectors = file as SpecRuleVectors;

describe('docs/vectors/spec-rules.json', () => {
  it('holds vectors of every rule it names', () => {
    expect(vectors.vectors.length).toBeGreaterThan(50);
    expect(new Set(vectors.vectors.map((v) => v.rule)).size).toBeGreaterThan(15);
  });

  it.each(vectors.vectors.map((v, i) => [i, v.rule, v] as const))(
    'vector %i: %s gives the recorded result',
    (_i, rule, vector) => {
      expect(runRule(rule, vector.args)).toEqual(vector.result);
    },
  );

  it('is the file the generator writes from the current code (npm run vectors)', () => {
    expect(vectors).toEqual(specRuleVectors());
  });
});
