// ESLint's own max-lines-per-function, except for React components: a screen reads as one JSX tree
// and is exempt ("no function over 150 outside React screens"). A component is told by
// its PascalCase name, the convention eslint-plugin-react-hooks also uses; every other function in
// a .tsx file (helpers, hooks, callbacks) is measured as the core rule measures it.
import { builtinRules } from 'eslint/use-at-your-own-risk';

const core = builtinRules.get('max-lines-per-function');

/** The name a function is known by: its own, or the variable or key it is assigned to. */
function nameOf(node) {
  if (node.id?.name) return node.id.name;
  let parent = node.parent;
  // memo(function Row() {}), forwardRef((props, ref) => ...) assigned to a variable
  if (parent?.type === 'CallExpression') parent = parent.parent;
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier')
    return parent.id.name;
  if (parent?.type === 'MethodDefinition' || parent?.type === 'Property')
    return parent.key?.name ?? null;
  return null;
}

const isComponent = (node) => /^[A-Z]/.test(nameOf(node) ?? '');

export default {
  meta: {
    ...core.meta,
    docs: {
      description: 'max-lines-per-function, React components (PascalCase functions) exempt',
    },
  },
  create(context) {
    const outsideComponents = Object.create(context, {
      report: {
        value: (descriptor) => {
          if (!isComponent(descriptor.node)) context.report(descriptor);
        },
      },
    });
    return core.create(outsideComponents);
  },
};
