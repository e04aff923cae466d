// Registers the custom matchers (toHaveNoToolLoops) for every test file.
export {};
