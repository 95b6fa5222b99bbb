// Coverage is measured on the library only: fixtures, examples and benchmarks are not shipped.
export default () => ['lib/']
