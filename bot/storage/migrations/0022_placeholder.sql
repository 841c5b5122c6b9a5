-- Holds the number 22 for the migration of another branch; replaced by it when they meet.
SELECT 1;
