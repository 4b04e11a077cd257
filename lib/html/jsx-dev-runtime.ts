/** The development entry of ./jsx-runtime (Bun imports it outside production builds). */
export { Fragment, jsx, jsx as jsxDEV, jsxs } from "./jsx-runtime";
