-- Holds the number 19 for the migration of another branch; replaced by it when they meet.
SELECT 1;
