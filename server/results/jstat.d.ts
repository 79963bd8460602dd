// jstat ships no types. Only what server/results/statistics.ts uses is declared here; add a function when it is used.
// jstat is CommonJS: under Node's ESM loader its `module.exports` (the jStat object, which also carries itself as
// `jStat`) is the default export, and no named export is detected.
declare module 'jstat' {
  interface JStat {
    /** Regularized incomplete beta function I_x(a, b). */
    ibeta(x: number, a: number, b: number): number;
    studentt: {
      /** Quantile of Student's t distribution with `dof` degrees of freedom (any positive real). */
      inv(p: number, dof: number): number;
    };
    normal: {
      cdf(x: number, mean: number, std: number): number;
      pdf(x: number, mean: number, std: number): number;
      inv(p: number, mean: number, std: number): number;
    };
    chisquare: {
      cdf(x: number, dof: number): number;
    };
  }
  const jStatModule: JStat & { jStat: JStat };
  export default jStatModule;
}
