export * from './api.js';
export * from './limits.js';
export * from './messages.js';
export * from './schemas/admin.js';
export * from './schemas/auth.js';
export * from './schemas/projects.js';
export * from './schemas/review.js';
export * from './statuses.js';
