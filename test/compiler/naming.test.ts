// Table names: snake_case of the model name, last word pluralised; the
// classical stems inflect classically, also at the end of compounds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pluralize, snakeCase, tableName } from '../../compiler/src/ir/naming.js';

describe('table names', () => {
  const classical: [string, string][] = [
    ['analysis', 'analyses'],
    ['basis', 'bases'],
    ['axis', 'axes'],
    ['diagnosis', 'diagnoses'],
    ['thesis', 'theses'],
    ['hypothesis', 'hypotheses'],
    ['datum', 'data'],
    ['medium', 'media'],
    ['matrix', 'matrices'],
    ['vertex', 'vertices'],
    ['criterion', 'criteria'],
    ['phenomenon', 'phenomena'],
  ];
  const english: [string, string][] = [
    ['album', 'albums'],
    ['complex', 'complexes'],
    ['index', 'indexes'],
    ['category', 'categories'],
    ['box', 'boxes'],
    ['day', 'days'],
    ['bus', 'buses'],
    ['class', 'classes'],
    ['person', 'persons'],
    ['post', 'posts'],
    ['quiz', 'quizes'],
    ['church', 'churches'],
    ['wish', 'wishes'],
    ['key', 'keys'],
  ];

  for (const [singular, plural] of classical) {
    it(`${singular} → ${plural} (classical)`, () => assert.equal(pluralize(singular), plural));
  }
  for (const [singular, plural] of english) {
    it(`${singular} → ${plural} (English ending)`, () => assert.equal(pluralize(singular), plural));
  }

  it('classical stems also inflect at the end of a compound word', () => {
    assert.equal(pluralize('psychoanalysis'), 'psychoanalyses');
    assert.equal(pluralize('submatrix'), 'submatrices');
    assert.equal(pluralize('metadatum'), 'metadata');
    assert.equal(pluralize('multimedium'), 'multimedia');
    assert.equal(pluralize('synthesis'), 'syntheses');
  });

  it('model names become snake_case with the last word pluralised', () => {
    const table: [string, string][] = [
      ['BlogPost', 'blog_posts'],
      ['BloodAnalysis', 'blood_analyses'],
      ['Category', 'categories'],
      ['Analysis', 'analyses'],
      ['Matrix', 'matrices'],
      ['DataMatrix', 'data_matrices'],
      ['GraphVertex', 'graph_vertices'],
      ['SearchCriterion', 'search_criteria'],
      ['SocialMedium', 'social_media'],
      ['PhotoAlbum', 'photo_albums'],
      ['SearchIndex', 'search_indexes'],
      ['Person', 'persons'],
      ['HTTPRequestLog', 'http_request_logs'],
      ['PostTag', 'post_tags'],
      ['Oauth2Token', 'oauth2_tokens'],
      ['WorkDay', 'work_days'],
    ];
    assert.deepEqual(
      table.map(([name]) => [name, tableName(name)]),
      table,
    );
  });

  it('snake_case keeps acronyms together and splits digits from capitals', () => {
    assert.equal(snakeCase('BlogPost'), 'blog_post');
    assert.equal(snakeCase('APIKey'), 'api_key');
    assert.equal(snakeCase('userID'), 'user_id');
    assert.equal(snakeCase('Model2Fa'), 'model2_fa');
  });
});
