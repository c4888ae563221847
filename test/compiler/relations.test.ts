// Relation resolution: BelongsTo by convention and explicitly, HasMany by
// the inverse BelongsTo, ManyToMany through a junction model.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { BuildResult, ModelIR } from '@mfx/compiler';
import { compile, fixture, locate } from './support.js';

let blog: BuildResult;
let shapes: BuildResult;

before(() => {
  blog = compile([fixture('blog', 'models.ts')]);
  shapes = compile([fixture('compiler', 'relations', 'models.ts')]);
});

function relations(result: BuildResult, model: string) {
  const found: ModelIR | undefined = result.models.find((m) => m.name === model);
  assert.ok(found, `model ${model} is built`);
  return found.relations.map(({ span: _span, order: _order, ...relation }) => relation);
}

describe('relations: the blog', () => {
  it('compiles cleanly', () => assert.deepEqual(blog.diagnostics, []));

  it('Post.author: explicit BelongsTo User with cascade; explicit wins over the userId convention', () => {
    const post = relations(blog, 'Post');
    assert.deepEqual(post[0], {
      kind: 'belongsTo',
      key: 'author',
      target: 'User',
      field: 'userId',
      column: 'userId',
      onDelete: 'cascade',
      companion: 'author',
    });
    assert.equal(post.filter((r) => r.key === 'user').length, 0);
    assert.equal(blog.models.find((m) => m.name === 'Post')?.fields.find((f) => f.name === 'userId')?.relation, 'author');
  });

  it('User.posts: HasMany Post through its inverse author', () => {
    assert.deepEqual(relations(blog, 'User')[1], {
      kind: 'hasMany',
      key: 'posts',
      target: 'Post',
      inverse: 'author',
      remoteField: 'userId',
      remoteColumn: 'userId',
    });
  });

  it('Comment.user: BelongsTo User by convention, no referential action', () => {
    assert.deepEqual(relations(blog, 'Comment')[1], {
      kind: 'belongsTo',
      key: 'user',
      target: 'User',
      field: 'userId',
      column: 'userId',
      onDelete: 'noAction',
    });
    assert.deepEqual(relations(blog, 'User')[2], {
      kind: 'hasMany',
      key: 'comments',
      target: 'Comment',
      inverse: 'user',
      remoteField: 'userId',
      remoteColumn: 'userId',
    });
  });

  it('Post.tags and Tag.posts: ManyToMany through PostTag, each side with its own columns', () => {
    assert.deepEqual(relations(blog, 'Post')[2], {
      kind: 'manyToMany',
      key: 'tags',
      target: 'Tag',
      through: 'PostTag',
      throughTable: 'post_tags',
      localColumn: 'postId',
      targetColumn: 'tagId',
    });
    assert.deepEqual(relations(blog, 'Tag')[0], {
      kind: 'manyToMany',
      key: 'posts',
      target: 'Post',
      through: 'PostTag',
      throughTable: 'post_tags',
      localColumn: 'tagId',
      targetColumn: 'postId',
    });
  });

  it('User.company: explicit BelongsTo with setNull on a nullable key; Company.users is its HasMany', () => {
    assert.deepEqual(relations(blog, 'User')[0], {
      kind: 'belongsTo',
      key: 'company',
      target: 'Company',
      field: 'companyId',
      column: 'companyId',
      onDelete: 'setNull',
      companion: 'company',
    });
    assert.deepEqual(relations(blog, 'Company'), [
      { kind: 'hasMany', key: 'users', target: 'User', inverse: 'company', remoteField: 'companyId', remoteColumn: 'companyId' },
    ]);
  });

  it('relations are listed in declaration order and carry the location of their property', () => {
    assert.deepEqual(relations(blog, 'Post').map((r) => r.key), ['author', 'comments', 'tags']);
    const tags = blog.models.find((m) => m.name === 'Post')?.relations.find((r) => r.key === 'tags');
    const where = locate(fixture('blog', 'models.ts'), 'tags?:');
    assert.deepEqual({ line: tags?.span.line, col: tags?.span.col }, where);
  });

  it('relation companions and collections are not columns', () => {
    const names = blog.models.find((m) => m.name === 'Post')?.fields.map((f) => f.name);
    for (const property of ['author', 'comments', 'tags']) assert.ok(!names?.includes(property), property);
  });
});

describe('relations: other shapes', () => {
  it('compiles cleanly', () => assert.deepEqual(shapes.diagnostics, []));

  it('a camelCase <model>Id names a multi-word model; key is the lower-cased model name; a companion is optional', () => {
    assert.deepEqual(relations(shapes, 'Note'), [
      { kind: 'belongsTo', key: 'blogpost', target: 'BlogPost', field: 'blogPostId', column: 'blogPostId', onDelete: 'noAction', companion: 'blogPost' },
    ]);
  });

  it('a snake_case <model>_id names the model too; a string ending in Id that names no model is a column', () => {
    assert.deepEqual(relations(shapes, 'Comment'), [
      { kind: 'belongsTo', key: 'blogpost', target: 'BlogPost', field: 'blog_post_id', column: 'blog_post_id', onDelete: 'noAction' },
    ]);
  });

  it('relation:KEY on a HasMany picks the inverse when the child has several keys back', () => {
    assert.deepEqual(
      relations(shapes, 'BlogPost').map((r) => r.kind === 'hasMany' && [r.key, r.inverse, r.remoteColumn]),
      [
        ['reactions', 'post', 'blogPostId'],
        ['quotes', 'quoted', 'quotedId'],
        ['notes', 'blogpost', 'blogPostId'],
      ],
    );
  });

  it('restrict and setNull are kept as written', () => {
    assert.deepEqual(relations(shapes, 'Reaction').map((r) => r.kind === 'belongsTo' && r.onDelete), ['restrict', 'setNull']);
  });

  it('a self-referencing junction: relation:KEY names the local side', () => {
    assert.deepEqual(
      relations(shapes, 'Member').map((r) => r.kind === 'manyToMany' && [r.key, r.localColumn, r.targetColumn, r.throughTable]),
      [
        ['following', 'followerId', 'followedId', 'follows'],
        ['followers', 'followedId', 'followerId', 'follows'],
      ],
    );
  });

  it('a model may belong to itself', () => {
    assert.deepEqual(
      relations(shapes, 'Category').map((r) => [r.kind, r.key, r.target]),
      [
        ['belongsTo', 'category', 'Category'],
        ['hasMany', 'categories', 'Category'],
      ],
    );
  });
});
